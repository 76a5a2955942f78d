"""Where an Expectation's evidence is: every kind declares its part, a scorer that knows says
exactly which (the request that matched, the Tool call, the guard decision), the verdict
carries it into the Scorecard, and the transcript has an anchor for it: the report's link
opens that, never a guess (a ``model_prompt_contains`` on request 3 used to open the answer)."""

from __future__ import annotations

import msgspec

from eval_core._plugins.plugins import load_plugins
from eval_core._running.scoring import score
from eval_core.records import Evidence, GuardDecision, KindSpec, Location, ModelRequest, ToolCall
from eval_kit import evidence
from eval_report.transcripts import anchor, anchors

_KINDS: dict[str, KindSpec] = load_plugins().kinds


def _scored(ev: Evidence, *written: dict[str, object]) -> list[Location | None]:
    structs = [msgspec.convert(w, _KINDS[str(w["kind"])].struct) for w in written]
    results, _ = score(structs, ev, _KINDS)
    return [r.at for r in results]


def _request(*texts: str) -> ModelRequest:
    return ModelRequest(
        system="You are the support agent.",
        messages=[{"role": "user", "content": t} for t in texts],
        tools=["lookup_ticket"],
    )


def test_every_installed_kind_declares_where_its_evidence_lives() -> None:
    undeclared = sorted(name for name, spec in _KINDS.items() if spec.evidence_at is None)
    assert undeclared == []
    assert len(_KINDS) > 40  # every family of the workspace, not a stand-in set
    parts = {spec.evidence_at.part for spec in _KINDS.values() if spec.evidence_at}
    assert {"request", "tool_call", "denial", "guard", "record", "answer"} <= parts
    for spec in _KINDS.values():  # a declared record is one some family puts in Evidence
        at = spec.evidence_at
        assert at is not None and (at.part != "record" or (at.record and ":" in at.record))


def test_a_prompt_kind_on_request_3_points_at_request_3() -> None:
    ev = evidence(
        model_requests=[
            _request("Where is my order?"),
            _request("Where is my order?", "T-1043: replacement shipped"),
            _request("Where is my order?", "T-1043: replacement shipped", "And T-1044?"),
        ],
        model_calls=3,
        output_text="Your replacement shipped.",
        loop_status="completed",
    )
    found = _scored(
        ev,
        {"kind": "model_prompt_contains", "text": "And T-1044?"},  # the last request: #3
        {"kind": "model_prompt_contains", "text": "never sent"},  # failed: where it looked
        {"kind": "model_prompt_omits", "text": "replacement shipped"},  # failed: the first
        {"kind": "output_contains", "text": "replacement"},
        {"kind": "loop_status", "status": "completed"},
    )
    assert found == [
        Location.request_at(2),
        Location.request_at(2),
        Location.request_at(1),  # request 2 is the first that holds it
        Location.ANSWER,  # the kind's declared part: its scorer names no finer place
        Location.ANSWER,
    ]
    assert [anchor(at) for at in found if at] == ["request-3", "request-3", "request-2"] + [
        "answer"
    ] * 2
    assert {anchor(at) for at in found if at} <= set(anchors(ev))


def test_a_tool_kind_points_at_its_call_and_a_guard_kind_at_its_decision() -> None:
    calls = [
        ToolCall(call_id="c1", name="lookup_ticket", arguments={"ticketId": "T-1042"}),
        ToolCall(call_id="c2", name="lookup_ticket", arguments={"ticketId": "T-1043"}),
    ]
    guards = [
        GuardDecision(stage="input", guard="prompt_injection", blocked=False),
        GuardDecision(stage="tool_call", guard="tool_blocklist", blocked=False),
        GuardDecision(stage="tool_call", guard="tool_blocklist", blocked=True, detail="refund"),
    ]
    ev = evidence(tool_calls=calls, guard_decisions=guards, model_calls=1)
    t1043 = {"value": "T-1043"}
    found = _scored(
        ev,
        {"kind": "tool_argument_equals", "name": "lookup_ticket", "path": "ticketId", **t1043},
        {"kind": "tool_called", "name": "lookup_ticket"},
        {"kind": "tool_call_count", "count": 2},
        {"kind": "guardrail_blocked", "stage": "tool_call", "guard": "tool_blocklist"},
    )
    assert found == [
        Location.call_at(calls[1]),
        Location.call_at(calls[0]),  # the first call of it
        Location.TOOL_CALLS,  # a count is about them all
        Location.guard_at(2),  # the decision that blocked, not the one that looked
    ]
    assert [anchor(at) for at in found if at] == ["call-c2", "call-c1", "calls", "guard-3"]
    assert {anchor(at) for at in found if at} <= set(anchors(ev))


def test_nothing_observed_still_points_at_the_part_the_kind_reads() -> None:
    ev = evidence()  # no requests observed: the failure's evidence is their absence
    assert _scored(ev, {"kind": "model_prompt_contains", "text": "x"}) == [Location.REQUESTS]
    assert anchors(ev) == ["answer"]  # no part observed has no anchor but the answer's
