"""The Soul doctor on a real git repository: a repair on a Soul that moved is a conflict."""

from __future__ import annotations

from pathlib import Path

from agent_runtime.doctor import Finding, Repair, recorded, run_doctor
from agent_runtime.soul_repo import SoulRepo
from agent_runtime.storage import Template

BROKEN = "inputs: {queue: {type: string}}\nstates:\n  - {key: digest, type: tool, tool: t, " \
    "arguments: {q: {$from: inputs.queu}}}\n"  # fmt: skip
FIXED = BROKEN.replace("inputs.queu", "inputs.queue")


class MovesTheSoulFirst:
    """Proposes a clean repair, but someone commits to the Soul while it does."""

    def __init__(self, repo: SoulRepo) -> None:
        self.repo = repo

    def propose(self, finding: Finding) -> Repair | None:
        self.repo.write("Skill", "late-note", "---\nname: Late\ndescription: Late.\n---\nLate.")
        return Repair(finding.slug, FIXED, "Read queue, not queu.")


def test_a_repair_of_a_soul_that_moved_is_refused_as_a_conflict_and_escalated(
    tmp_path: Path, soul_copy: Path
) -> None:
    repo = SoulRepo(soul_copy, tmp_path / "work")
    repo.write("Routine", "ticket-digest", BROKEN)
    template = Template()
    conn = template.fresh()
    events = run_doctor(conn, repo, MovesTheSoulFirst(repo), lambda commit, publication: None)
    assert [(e.kind, e.subject) for e in events] == [
        ("finding", "Routine:ticket-digest"),
        ("escalated", "Routine:ticket-digest"),
    ]
    assert "CONFLICT: the Soul moved" in events[1].detail
    assert recorded(conn) == events
    template.close()
