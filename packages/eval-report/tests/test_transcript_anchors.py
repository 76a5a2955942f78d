"""Every place of a transcript has an anchor, and every Location names one of them: what the
report's "see the evidence" link opens (its page lays the transcript out with these ids)."""

from __future__ import annotations

import msgspec

from eval_core._case.evidence import (
    Denial,
    Event,
    Evidence,
    GuardDecision,
    Location,
    ModelRequest,
    ToolCall,
    ToolResult,
    record_key,
)
from eval_core._recording.transcript import encode
from eval_report.transcripts import anchor, anchors, decode


class _Ledger(msgspec.Struct, frozen=True):
    rows: int


def _evidence() -> Evidence:
    sent = ModelRequest(system="s", messages=[], tools=[])
    found = Evidence(
        tier="l3",
        model_requests=[sent, sent],
        tool_calls=[ToolCall(call_id="c1", name="lookup", arguments={})],
        tool_results=[
            ToolResult(call_id="c1", name="lookup", arguments={}, status="succeeded"),
            ToolResult(call_id="c9", name="refund", arguments={}, status="denied"),
        ],
        denials=[Denial(call_id="c9", name="refund", arguments={}, reason="r", source="gate")],
        guard_decisions=[GuardDecision(stage="input", guard="g", blocked=False)],
        events=[
            Event(turn_index=1, seq=1, type="turn.started"),
            Event(turn_index=2, seq=1, type="turn.started"),
        ],
    )
    found.put(_Ledger(rows=3))
    return found


def test_every_place_of_a_transcript_has_one_anchor_in_the_order_it_is_laid_out() -> None:
    ev = _evidence()
    key = record_key(_Ledger)
    assert anchors(ev) == [
        "requests", "request-1", "request-2",
        "calls", "call-c1", "call-c9",  # a result with no call received is laid out too
        "denials", "denial-1",
        "guards", "guard-1",
        "events", "event-1-1", "event-2-1",  # an event is its Turn and its seq
        "answer",
        "records", f"record-{key}",
    ]  # fmt: skip
    assert len(set(anchors(ev))) == len(anchors(ev))
    assert anchors(Evidence(tier="l2")) == ["answer"]


def test_each_location_names_its_anchor_and_a_whole_part_when_it_cannot_say_which() -> None:
    ev = _evidence()
    exact = [
        Location.request_at(1),
        Location.call_at(ev.tool_calls[0]),  # type: ignore[index]
        Location.denial_at(0),
        Location.guard_at(0),
        Location.event_at(ev.events[1]),  # type: ignore[index]
        Location.record_of(_Ledger),
        Location.ANSWER,
    ]
    names = [anchor(at) for at in exact]
    assert names[:5] == ["request-2", "call-c1", "denial-1", "guard-1", "event-2-1"]
    assert set(names) <= set(anchors(ev))
    whole = [Location.REQUESTS, Location.TOOL_CALLS, Location.DENIALS, Location.GUARDS]
    whole += [Location.EVENTS, Location.RECORDS, Location(part="event", seq=4)]  # no Turn
    assert [anchor(at) for at in whole] == [
        "requests", "calls", "denials", "guards", "events", "records", "events"
    ]  # fmt: skip


def test_the_anchors_survive_the_record_a_transcript_is_stored_as() -> None:
    ev = _evidence()
    stored = decode(encode([], ev, lambda data: data), "test")
    assert anchors(stored.evidence) == anchors(ev)
