"""The Soul doctor: the repair pass that runs after a Turn.

It sweeps the Soul's Routines as the repository's head holds them with the static Routine lint
(:func:`agent_runtime.routines.definitions.lint`). A finding is offered to a repair source (a model
in production; anything that proposes a Routine's content): a proposal for that Routine that lints
clean is written by the real ``soul_write`` Tool, as the original's doctor writes it (canonical,
subject ``fix(soul): repair <slug>``, ``expectedBaseCommit`` the head the finding was made at), and
published; anything else (no proposal, one for another Routine, one that still does not lint, a
Soul that moved under the repair: ``soul_write`` denies it ``CONFLICT``) is escalated to a person.
Every step is recorded in ``doctor_events``, and the doctor's ``soul_write`` call and its result in
the Run's ``run_events`` (participant ``runtime``), so what the doctor did is read back from the
database."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

import msgspec
import yaml

from agent_runtime.model import ToolCallRequest
from agent_runtime.routines.definitions import lint
from agent_runtime.soul import files as soul_files
from agent_runtime.soul.loader import ROUTINE_FILE
from agent_runtime.soul.repo import Commit, Publication, SoulRepo, SoulWriter
from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic
from agent_runtime.tools import ToolExecutor, ToolOutcome
from agent_runtime.turn.events import call_payload, result_payload

DOCTOR = "soul-doctor"
"""Who writes a repair (never an agent of the Soul: it may repair any Routine)."""

EventKind = Literal["finding", "repaired", "escalated"]


class Finding(msgspec.Struct, frozen=True):
    """What is wrong with one artifact: ``subject`` is ``Kind:slug``."""

    subject: str
    slug: str
    problem: str


class Repair(msgspec.Struct, frozen=True):
    """A proposed new content for one Routine, and what it changes."""

    slug: str
    content: str
    summary: str


class RepairSource(Protocol):
    def propose(self, finding: Finding) -> Repair | None: ...


class DoctorEvent(msgspec.Struct, frozen=True):
    """One step; ``write`` is the repair's ``soul_write`` call and outcome (not recorded in
    ``doctor_events``: it goes to the Run's events). ``write`` is left out of ``==``, ``hash``
    and ``repr``."""

    kind: EventKind
    subject: str
    detail: str
    commit: str | None = None
    write: tuple[ToolCallRequest, ToolOutcome] | None = None

    def _step(self) -> tuple[str, str, str, str | None]:
        return (self.kind, self.subject, self.detail, self.commit)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__ or not isinstance(other, DoctorEvent):
            return NotImplemented
        return self._step() == other._step()

    def __hash__(self) -> int:
        return hash(self._step())

    def __repr__(self) -> str:
        kind, subject, detail, commit = self._step()
        return f"{type(self).__name__}({kind=!r}, {subject=!r}, {detail=!r}, {commit=!r})"


Published = Callable[[Commit, Publication], None]
Around = Callable[[ToolExecutor], ToolExecutor]


class Publishing(msgspec.Struct, frozen=True):
    """A publishing hook with the Tool boundary the repairs' ``soul_write`` passes (a Host's
    Tool witness): what a Host hands :func:`run_doctor` as ``published``."""

    publish: Published
    around: Around | None

    def __call__(self, commit: Commit, publication: Publication) -> None:
        self.publish(commit, publication)


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
    """Sweep, repair what a clean proposal repairs, escalate the rest; the events, recorded.
    ``published`` may be a :class:`Publishing` (the repairs' ``soul_write`` passes its
    boundary)."""
    events: list[DoctorEvent] = []
    hook = published if isinstance(published, Publishing) else Publishing(published, None)
    head = repo.head()  # what the findings are about: a repair must land on this
    for finding in examine(repo):
        events.append(DoctorEvent("finding", finding.subject, finding.problem))
        treated = _treat(repo, source, finding, hook, head)
        events.append(treated)
        head = treated.commit or head
    _record(conn, events, run_id)
    if run_id is not None:
        _record_writes(conn, run_id, [e.write for e in events if e.write is not None])
    return events


def _treat(
    repo: SoulRepo,
    source: RepairSource,
    finding: Finding,
    published: Published,
    head: str,
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
    call = ToolCallRequest(
        f"doctor-repair-{finding.slug}-{head[:12]}",
        "soul_write",
        {
            "kind": "Routine",
            "slug": finding.slug,
            "content": proposal.content,
            "definitionMode": "canonical",
            "subject": f"fix(soul): repair {finding.slug}\n\n{proposal.summary}",
            "expectedBaseCommit": head,
        },
    )
    landed: list[tuple[Commit, Publication | None]] = []
    tool: ToolExecutor = SoulWriter(repo, DOCTOR, lambda c, p, _why: landed.append((c, p)))
    around = published.around if isinstance(published, Publishing) else None
    outcome = (tool if around is None else around(tool)).execute(call)
    publication = landed[0][1] if landed else None
    if outcome.status != "succeeded" or publication is None:
        refused = f"the repair was refused: {outcome.reason}"
        return DoctorEvent(escalated, finding.subject, refused, write=(call, outcome))
    commit = landed[0][0]
    published(commit, publication)
    return DoctorEvent(
        "repaired", finding.subject, proposal.summary, commit.sha, write=(call, outcome)
    )


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


def _record_writes(
    conn: Connection, run_id: str, writes: Sequence[tuple[ToolCallRequest, ToolOutcome]]
) -> None:
    """The doctor's ``soul_write`` calls and their results, in the Run they followed."""
    with atomic(conn):
        row = conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM run_events WHERE run_id = ?", (run_id,)
        ).fetchone()
        seq = int(row[0])
        for call, outcome in writes:
            for kind, payload in (
                ("tool.call", call_payload(call)),
                ("tool.result", result_payload(call.call_id, outcome)),
            ):
                seq += 1
                conn.execute(
                    "INSERT INTO run_events (run_id, seq, type, participant, payload) "
                    "VALUES (?, ?, ?, 'runtime', ?)",
                    (run_id, seq, kind, json.dumps(payload)),
                )


def recorded(conn: Connection) -> list[DoctorEvent]:
    """The doctor's events as the database holds them, in order."""
    rows = conn.execute(
        "SELECT kind, subject, detail, commit_sha FROM doctor_events ORDER BY seq"
    ).fetchall()
    return [DoctorEvent(kind, subject, detail, commit) for kind, subject, detail, commit in rows]
