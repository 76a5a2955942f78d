"""The Soul doctor's test seam: a repair pass after a Turn, each repair it commits published,
and an operator who may edit the Soul between a finding and its repair.

The commits the pass added are read from the repository's log (a witness, whatever the doctor
recorded); the operator's own edits are never counted as the doctor's or the Agent's.
"""

from __future__ import annotations

from agent_runtime.soul import doctor
from agent_runtime.soul.doctor import Around, Publishing, RepairSource
from agent_runtime.soul.publications import publish
from agent_runtime.soul.repo import Commit, Publication, SoulRepo
from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic


class DoctorScenario:
    """The doctor over one database and one Soul repository. ``operator_commits`` are the
    commits :meth:`operator_edit` made (shared with whoever reads the repository's log)."""

    __slots__ = ("around", "conn", "operator_commits", "repo")

    def __init__(
        self, conn: Connection, repo: SoulRepo, around: Around, operator_commits: set[str]
    ) -> None:
        self.conn = conn
        self.repo = repo
        self.around = around
        self.operator_commits = operator_commits

    def published(self, commit: Commit, publication: Publication) -> None:
        with atomic(self.conn):
            publish(self.conn, commit.sha, str(publication.bundle), publication.artifacts, None)

    def operator_edit(self, slug: str, content: str) -> None:
        """An operator writes the Routine ``slug`` and publishes it."""
        commit = self.repo.write("Routine", slug, content, subject=f"operator: edit {slug}")
        self.operator_commits.add(commit.sha)
        self.published(commit, self.repo.publish(commit.sha))

    def run(self, source: RepairSource, run_id: str) -> list[tuple[str, tuple[str, ...]]]:
        """One doctor pass (its repairs pass the Tool boundary ``around``); the commits it
        added to the repository, oldest first, the operator's left out."""
        repo = self.repo
        before = repo.head()
        doctor.run_doctor(self.conn, repo, source, Publishing(self.published, self.around), run_id)
        after = repo.head()
        if after == before:
            return []
        return [
            (sha, paths)
            for sha, paths in repo.log(before, after)
            if sha not in self.operator_commits
        ]
