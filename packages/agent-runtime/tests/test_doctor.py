"""The Soul doctor on a real git repository: a repair on a Soul that moved is a conflict."""

from __future__ import annotations

import json
from pathlib import Path

from agent_runtime.model import ToolCallRequest
from agent_runtime.soul.doctor import (
    DoctorEvent,
    Finding,
    Publishing,
    Repair,
    examine,
    recorded,
    run_doctor,
)
from agent_runtime.soul.repo import SoulRepo
from agent_runtime.store.storage import Template
from agent_runtime.tools import ToolExecutor, ToolOutcome

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


def test_a_doctor_event_equals_only_a_doctor_event_of_the_same_step() -> None:
    """Equal by its step alone (the repair's ``write`` is left out, as ``recorded`` rebuilds
    events without it), and unequal, never an error, to what is no DoctorEvent: its step as a
    tuple, its detail, None (so events sit in mixed lists and ``in`` checks)."""
    step = DoctorEvent("escalated", "Routine:ticket-digest", "CONFLICT: the Soul moved", None)
    call = ToolCallRequest("doctor-1", "soul_write", {"kind": "Routine"})
    written = DoctorEvent(
        "escalated",
        "Routine:ticket-digest",
        "CONFLICT: the Soul moved",
        None,
        write=(call, ToolOutcome("denied", reason="CONFLICT: the Soul moved")),
    )
    assert step == written and hash(step) == hash(written)
    assert step != DoctorEvent("repaired", "Routine:ticket-digest", "CONFLICT: the Soul moved")
    others = [("escalated", "Routine:ticket-digest", "CONFLICT: the Soul moved", None)]
    others += ["CONFLICT: the Soul moved", None]
    assert [step == other for other in others] == [False, False, False]
    assert step not in others and [*others, step].index(written) == len(others)


class Seen:
    """A Tool boundary in front of the doctor's ``soul_write``: what it was handed."""

    def __init__(self, inner: ToolExecutor) -> None:
        self.inner = inner
        self.calls: list[ToolCallRequest] = []

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.calls.append(call)
        return self.inner.execute(call)


def test_the_repair_is_a_soul_write_recorded_in_the_run(tmp_path: Path, soul_copy: Path) -> None:
    """As the original's doctor: the repair is a ``soul_write`` call (``expectedBaseCommit``
    the head of the finding) that passes the Host's Tool boundary, and the call and its
    ``CONFLICT`` denial are the Run's events."""
    repo = SoulRepo(soul_copy, tmp_path / "work")
    repo.write("Routine", "ticket-digest", BROKEN)
    head = repo.head()
    template = Template()
    conn = template.fresh()
    conn.execute("INSERT INTO conversations (id, agent) VALUES ('conv-1', 'support')")
    conn.execute(
        "INSERT INTO runs (id, conversation_id, source, status) "
        "VALUES ('run-1', 'conv-1', 'chat', 'succeeded')"
    )
    seen: list[Seen] = []

    def around(inner: ToolExecutor) -> ToolExecutor:
        seen.append(Seen(inner))
        return seen[-1]

    hook = Publishing(lambda c, p: None, around)
    run_doctor(conn, repo, MovesTheSoulFirst(repo), hook, "run-1")
    [boundary] = seen
    assert [(c.name, c.arguments["expectedBaseCommit"]) for c in boundary.calls] == [
        ("soul_write", head)
    ]
    rows = conn.execute(
        "SELECT type, participant, payload FROM run_events WHERE run_id = 'run-1' ORDER BY seq"
    ).fetchall()
    assert [(kind, who) for kind, who, _ in rows] == [
        ("tool.call", "runtime"),
        ("tool.result", "runtime"),
    ]
    result = json.loads(rows[1][2])
    assert result["errorCode"] == "denied" and result["summary"].startswith("CONFLICT")
    template.close()


def test_a_note_beside_the_routine_folders_is_no_finding(tmp_path: Path, soul_copy: Path) -> None:
    """A note kept beside the Routine folders is no Routine (the loader reads folders only):
    the doctor finds the broken Routine, never an unreadable one made up of the note."""
    routines = soul_copy / "routines"
    routines.mkdir(exist_ok=True)
    (routines / "README.md").write_text("Routines the team keeps.\n")
    repo = SoulRepo(soul_copy, tmp_path / "work")
    repo.write("Routine", "ticket-digest", BROKEN)
    assert [f.subject for f in examine(repo)] == ["Routine:ticket-digest"]
