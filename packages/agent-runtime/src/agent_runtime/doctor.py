"""The Soul doctor: the repair pass that runs after a Turn.

It sweeps the Soul's Routines as the repository's head holds them with the static Routine lint
(:func:`agent_runtime.routines.lint`). A finding is offered to a repair source (a model in
production; anything that proposes a Routine's content): a proposal for that Routine that lints
clean is committed on the head the finding was made at (subject ``fix(soul): repair <slug>``)
and published; anything else (no proposal, one for another Routine, one that still does not
lint, a Soul that moved under the repair) is escalated to a person. Every step is recorded in
``doctor_events``, so what the doctor did is read back from the database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import yaml

from agent_runtime import soul_files
from agent_runtime.database import Connection
from agent_runtime.routines import lint
from agent_runtime.soul import ROUTINE_FILE, SoulError
from agent_runtime.soul_repo import Commit, Publication, SoulRepo, SoulWriteRefusedError
from agent_runtime.storage import atomic

EventKind = Literal["finding", "repaired", "escalated"]


@dataclass(frozen=True, slots=True)
class Finding:
    """What is wrong with one artifact: ``subject`` is ``Kind:slug``."""

    subject: str
    slug: str
    problem: str


@dataclass(frozen=True, slots=True)
class Repair:
    """A proposed new content for one Routine, and what it changes."""

    slug: str
    content: str
    summary: str


class RepairSource(Protocol):
    def propose(self, finding: Finding) -> Repair | None: ...


@dataclass(frozen=True, slots=True)
class DoctorEvent:
    kind: EventKind
    subject: str
    detail: str
    commit: str | None = None


Published = Callable[[Commit, Publication], None]


def problems(content: str) -> list[str]:
    """The lint's findings of a Routine's YAML (an unreadable document is one)."""
    try:
        data = soul_files.load_yaml(content)
    except yaml.YAMLError as error:
        return [f"not YAML: {' '.join(str(error).split())}"]
    return [str(finding) for finding in lint(data)]


def examine(repo: SoulRepo) -> list[Finding]:
    """Every Routine at the repository's head with a finding, by slug."""
    folder = repo.root / "routines"
    found: list[Finding] = []
    for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
        file = entry / ROUTINE_FILE
        if not file.is_file():
            continue
        try:
            wrong = problems(soul_files.read_text(file))
        except soul_files.SoulFileError as error:
            wrong = [error.reason]
        if wrong:
            found.append(Finding(f"Routine:{entry.name}", entry.name, "; ".join(wrong)))
    return found


def run_doctor(
    conn: Connection,
    repo: SoulRepo,
    source: RepairSource,
    published: Published,
    run_id: str | None = None,
) -> list[DoctorEvent]:
    """Sweep, repair what a clean proposal repairs, escalate the rest; the events, recorded."""
    events: list[DoctorEvent] = []
    head = repo.head()  # what the findings are about: a repair must land on this
    for finding in examine(repo):
        events.append(DoctorEvent("finding", finding.subject, finding.problem))
        treated = _treat(repo, source, finding, published, head)
        events.append(treated)
        head = treated.commit or head
    _record(conn, events, run_id)
    return events


def _treat(
    repo: SoulRepo, source: RepairSource, finding: Finding, published: Published, head: str
) -> DoctorEvent:
    escalated: EventKind = "escalated"
    proposal = source.propose(finding)
    if proposal is None:
        return DoctorEvent(escalated, finding.subject, f"no repair was proposed: {finding.problem}")
    if proposal.slug != finding.slug:
        return DoctorEvent(
            escalated,
            finding.subject,
            f"the repair proposed is for Routine {proposal.slug!r}, not {finding.slug!r}",
        )
    still = problems(proposal.content)
    if still:
        return DoctorEvent(
            escalated, finding.subject, f"the proposed repair does not lint: {'; '.join(still)}"
        )
    try:
        commit = repo.write(
            "Routine",
            finding.slug,
            proposal.content,
            subject=f"fix(soul): repair {finding.slug}\n\n{proposal.summary}",
            expected_base=head,
        )
        publication = repo.publish(commit.sha)
    except (SoulWriteRefusedError, SoulError) as refused:
        return DoctorEvent(escalated, finding.subject, f"the repair was refused: {refused}")
    published(commit, publication)
    return DoctorEvent("repaired", finding.subject, proposal.summary, commit.sha)


def _record(conn: Connection, events: Sequence[DoctorEvent], run_id: str | None) -> None:
    with atomic(conn):
        row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM doctor_events").fetchone()
        seq = int(row[0])
        for event in events:
            seq += 1
            conn.execute(
                "INSERT INTO doctor_events (seq, run_id, kind, subject, detail, commit_sha) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (seq, run_id, event.kind, event.subject, event.detail, event.commit),
            )


def recorded(conn: Connection) -> list[DoctorEvent]:
    """The doctor's events as the database holds them, in order."""
    rows = conn.execute(
        "SELECT kind, subject, detail, commit_sha FROM doctor_events ORDER BY seq"
    ).fetchall()
    return [DoctorEvent(kind, subject, detail, commit) for kind, subject, detail, commit in rows]
