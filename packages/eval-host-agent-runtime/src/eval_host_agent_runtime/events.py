"""The one mapping from the runtime's events to Evidence, shared by L2 and L3.

At L2 the loop's listener hands each event to a :class:`Recorder`; at L3 the same events are
read back from ``run_events``. Either way the Tool calls, Tool results, denials and guard
decisions a scorer reads are built here, from the events the runtime emitted, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agent_runtime.turn.events import PARTICIPANT_EVENTS
from eval_core.hosts import Denial, Event, GuardDecision, ToolCall, ToolResult, preview_value

Subscriber = Callable[[str, dict[str, Any]], None]


class Recorder:
    """The loop's listener at L2: every event kept in order, then passed to subscribers."""

    __slots__ = ("events", "subscribers", "turn_index")

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.subscribers: list[Subscriber] = []
        self.turn_index = 1

    def __call__(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append(
            Event(
                turn_index=self.turn_index,
                seq=len(self.events) + 1,
                type=kind,
                participant="participant" if kind in PARTICIPANT_EVENTS else "operator",
                payload=payload,
            )
        )
        for subscriber in self.subscribers:
            subscriber(kind, payload)


class Decisions:
    """What the events say the loop decided: calls, results, denials, guard decisions."""

    __slots__ = ("by_id", "calls", "denials", "guards", "results")

    def __init__(self, events: Sequence[Event]) -> None:
        self.calls: list[ToolCall] = []
        self.results: list[ToolResult] = []
        self.denials: list[Denial] = []
        self.guards: list[GuardDecision] = []
        self.by_id: dict[str, ToolCall] = {}
        for event in events:
            p, turn = event.payload, event.turn_index
            if not isinstance(p, dict):
                continue
            if event.type == "tool.call":
                call = ToolCall(
                    call_id=p["callId"],
                    name=p["name"],
                    arguments=preview_value(p.get("argsPreview")),
                    turn_index=turn,
                )
                self.calls.append(call)
                self.by_id[call.call_id] = call
            elif event.type == "tool.result":
                self._result(p, turn)
            elif event.type == "tool.denied":
                self.denials.append(
                    Denial(
                        call_id=p["call_id"],
                        name=p["name"],
                        arguments=p.get("arguments"),
                        reason=p["reason"],
                        source=p["source"],
                        turn_index=turn,
                    )
                )
            elif event.type == "guardrail.checked":
                self.guards.append(
                    GuardDecision(
                        stage=p["stage"],
                        guard=p["guard"],
                        blocked=p["blocked"],
                        detail=p.get("detail") or "",
                        turn_index=turn,
                    )
                )

    def _result(self, p: dict[str, Any], turn: int) -> None:
        """A ``tool.result``: ``ok`` is ``succeeded``, an ``error`` its ``errorCode``; the name
        and arguments come from the ``tool.call`` it answers (or, for a call rejected before
        dispatch, from the result itself)."""
        call_id = str(p["callId"])
        call = self.by_id.get(call_id)
        name = p.get("name") or (call.name if call is not None else "")
        arguments = call.arguments if call is not None else preview_value(p.get("argsPreview"))
        status = "succeeded" if p["status"] == "ok" else str(p.get("errorCode") or "failed")
        reason = p.get("summary")
        self.results.append(
            ToolResult(
                call_id=call_id,
                name=name,
                arguments=arguments,
                status=status,
                output=preview_value(p.get("resultPreview")),
                reason=reason,
                turn_index=turn,
            )
        )
        if status == "denied":  # a denial the Tool itself returned: the model saw it too
            self.denials.append(
                Denial(
                    call_id=call_id,
                    name=name,
                    arguments=arguments,
                    reason=reason or "",
                    source="tool",
                    turn_index=turn,
                )
            )
