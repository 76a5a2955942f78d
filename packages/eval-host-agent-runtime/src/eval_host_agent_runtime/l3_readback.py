"""What an L3 Trial's Runs left behind, read back into the records fixtures read and into the
Trial's Evidence: the Runs' rows and events, the messages the database holds, the Soul
repository's commits and publications, and the Tool calls the Tools behind the executor port
received. Nothing here is taken from the loop's memory."""

from __future__ import annotations

import json
from typing import Any

from agent_runtime.durable.runs import Minted
from agent_runtime.durable.scenario import Durable
from agent_runtime.routines.runs import run_status, states
from agent_runtime.soul.repo import SoulRepo
from agent_runtime.turn.result import ITERATION_LIMIT, REPAIR_BUDGET_EXHAUSTED, TOOL_CALL_LIMIT
from eval_core.hosts import Event, Evidence, Testimony, ToolCall, Usage
from eval_core.records import (
    ActivePublication,
    PersistedMessage,
    RoutineOutcome,
    SoulCommit,
    TurnRecord,
    folded,
)
from eval_host_agent_runtime.durable_services import RunLedgerService, SoulHistoryService
from eval_host_agent_runtime.events import Decisions

LIMIT_REASONS = frozenset({ITERATION_LIMIT, TOOL_CALL_LIMIT, REPAIR_BUDGET_EXHAUSTED})


class ReadBack:
    """The Trial's read-back, Turn by Turn. ``seeded``: call ids of an earlier pass the Host
    wrote itself (no model said them); ``workers_lost``: worker passes that died (what they did
    after their last commit is gone with them, as it would be in production)."""

    __slots__ = (
        "durable",
        "head",
        "history",
        "ledger",
        "operator_commits",
        "recorded",
        "seeded",
        "system_prompt",
        "usage",
        "workers_lost",
    )

    def __init__(
        self, durable: Durable, ledger: RunLedgerService, history: SoulHistoryService, head: str
    ) -> None:
        self.durable = durable
        self.ledger = ledger
        self.history = history
        self.head = head
        self.operator_commits: set[str] = set()
        """Commits the fixture made as an operator (not the runtime's, not in its record)."""
        self.recorded: list[Event] = []
        self.seeded: set[str] = set()
        self.workers_lost = 0
        self.usage = Usage()
        self.system_prompt: str | None = None

    def commits(self, repo: SoulRepo, index: int, before: str, after: str) -> list[SoulCommit]:
        """The Soul repository's commits from ``before`` to ``after``, filed under Turn
        ``index``; the fixture's operator edits are its own, never the Agent's or the doctor's."""
        if before == after:  # nothing committed: the log is not read
            return []
        return [
            SoulCommit(index, sha, list(paths), subject)
            for sha, subject, paths in repo.history(before, after)
            if sha not in self.operator_commits
        ]

    def events(self, index: int, run_id: str) -> None:
        """The Run's events as the database holds them, filed under Turn ``index``."""
        self.recorded.extend(
            Event(turn_index=index, seq=seq, type=kind, participant=who, payload=payload)
            for seq, kind, who, payload in self.durable.store.events(run_id)
        )

    def turn(self, index: int, minted: Minted, written: SoulRepo | None) -> None:
        """What Turn ``index`` left in the database and, when it may write the Soul, in the
        repository ``written``."""
        store = self.durable.store
        run_status, state_status, turn_status, reason = store.statuses(minted)
        self.ledger.turn_rows.append(
            TurnRecord(index, minted.run_id, run_status, state_status, turn_status, reason)
        )
        self.events(index, minted.run_id)
        self.ledger.message_rows.extend(
            PersistedMessage(index, role, content, metadata)
            for role, content, metadata in store.messages(minted.run_id)
        )
        if written is not None:
            head = written.head()
            if head != self.head:
                self.history.commit_rows.extend(self.commits(written, index, self.head, head))
                self.head = head
        row = store.conn.execute(
            "SELECT commit_sha, artifacts FROM soul_publications WHERE active = 1"
        ).fetchone()
        if row is not None:
            self.history.publication_rows.append(
                ActivePublication(index, row[0], json.loads(row[1]))
            )

    def scheduled(self, run_id: str, crashes: int, raised: str | None) -> RoutineOutcome:
        """The scheduled Routine's Run, filed as Turn 1, and its outcome."""
        conn = self.durable.conn
        rows = states(conn, run_id)
        status, reason = run_status(conn, run_id)
        tool = next((row for row in rows if row.kind == "tool"), None)
        capture = next((row for row in rows if row.kind == "capture"), None)
        tool_status = tool.status if tool is not None else None
        self.ledger.turn_rows.append(TurnRecord(1, run_id, status, tool_status, None, reason))
        self.events(1, run_id)
        captured = capture is not None and capture.status == "succeeded"
        return RoutineOutcome(
            run_id=run_id,
            run_status=status,
            reason=reason,
            state_status=tool_status,
            state_output=capture.output if capture is not None else None,
            captured=captured,
            crashes=crashes,
            raised=raised,
        )

    def evidence(self, tier: Any, received: list[ToolCall]) -> Evidence:
        """The Trial's Evidence; ``received``: the calls the Tools received, every pass's."""
        decisions = Decisions(self.recorded)
        turns, messages = self.ledger.turn_rows, self.ledger.message_rows
        journey = folded(turns)
        run_status = journey.run_status if journey is not None else None
        last = turns[-1] if turns else None
        answer = next(
            (
                m
                for m in reversed(messages)
                if m.role == "assistant" and last is not None and m.turn_index == last.turn_index
            ),
            None,
        )
        output_text: Any = None
        output_structured: Any = None
        output_kind = "none"
        meta = answer.metadata if answer is not None else None
        stored = meta.get("outputKind") if isinstance(meta, dict) else None
        content = answer.content if answer is not None else None
        released = content.get("content") if isinstance(content, dict) else None
        if stored in ("tool_calls", "none") and not released:
            # a failed attempt's Message that released no text is no answer: as at L2, a Turn
            # a limit stopped ended on its Tool calls, any other gave none
            output_kind = stored
        elif isinstance(content, dict):
            output_text = released
            structured = stored == "structured"
            output_kind = "structured" if structured else "text"
            if structured and isinstance(output_text, str):
                output_structured = json.loads(output_text)
        elif last is not None and last.reason in LIMIT_REASONS:
            output_kind = "tool_calls"
        said = [c for c in decisions.calls if c.call_id not in self.seeded]
        calls = self.reported_calls()  # where it keeps no count, it testifies to no usage
        return Evidence(
            tier=tier,
            testimony=Testimony(
                system_prompt=self.system_prompt,
                model_calls=calls,
                tool_calls=said,
                usage=self.usage if calls is not None else None,
            ),
            output_text=output_text if isinstance(output_text, str) else None,
            output_structured=output_structured,
            output_kind=output_kind,  # type: ignore[arg-type]
            tool_calls=list(received),
            tool_results=decisions.results,
            denials=decisions.denials,
            guard_decisions=decisions.guards,
            loop_status=_loop_status(run_status),
            loop_reason=journey.reason if journey is not None else None,
            usage=self.usage,
            events=self.recorded,
        )

    def reported_calls(self) -> int | None:
        """The model calls the runtime says it made, read back from the database: the sum of
        each Turn's count in its last ``turn.finished`` (a resumed Turn carries on its
        checkpoint's count). ``None`` where it keeps no count to check: a Turn that never
        finished (parked), or a worker that died (the calls it made after its last commit are
        gone with it, as they would be in production)."""
        if self.workers_lost:
            return None
        finished: dict[int, Any] = {}
        for event in self.recorded:
            if event.type == "turn.finished":
                finished[event.turn_index] = event.payload
        turns = {row.turn_index for row in self.ledger.turn_rows}
        if not turns or not turns <= finished.keys():
            return None
        total = 0
        for index in sorted(turns):
            count = finished[index].get("modelCallCount")
            if type(count) is not int:
                return None
            total += count
        return total


def _loop_status(run_status: str | None) -> str | None:
    """How the tool loop ended, from the Run: a Run needing reconciliation failed its loop."""
    if run_status == "succeeded":
        return "completed"
    if run_status == "needs_reconciliation":
        return "failed"
    return run_status
