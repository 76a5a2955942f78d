"""The core's witness checks: total over any Evidence, silent when testimony and witness agree
or either is missing, and a raising family check errors the Trial instead of deciding it."""

from __future__ import annotations

from typing import get_args

from hypothesis import given, settings

from eval_core._case.evidence import (
    Denial,
    Evidence,
    ModelRequest,
    RepliedCall,
    Testimony,
    ToolCall,
    Usage,
)
from eval_core._case.witness import TESTIMONY, WITNESSES, Witness, WitnessCheck, contradictions
from eval_core._running.trial import TrialResult, decide
from eval_kit.strategies import evidence_strategy

CALL = ToolCall(call_id="c1", name="lookup_ticket", arguments={"ticketId": "T-1"})
SENT = ModelRequest(system="You are the support agent.", messages=[], tools=[])


@settings(max_examples=200, deadline=None)
@given(evidence_strategy())
def test_the_checks_are_total(evidence: Evidence) -> None:
    assert all(isinstance(line, str) and line for line in contradictions(evidence))


def test_agreement_and_missing_sides_say_nothing() -> None:
    agreed = Evidence(
        tier="l2",
        tool_calls=[CALL],
        model_requests=[SENT],
        testimony=Testimony(system_prompt=SENT.system, model_calls=1, tool_calls=[CALL]),
    )
    assert contradictions(agreed) == []
    unobserved = Evidence(tier="l2", testimony=Testimony(tool_calls=[CALL], model_calls=3))
    assert contradictions(unobserved) == []  # no witness: the kinds fail it, not this check


def test_usage_is_compared_only_when_the_host_reports_some() -> None:
    handed = Usage(input_tokens=204, output_tokens=2)
    unreported = Evidence(tier="l2", model_usage=handed)
    assert contradictions(unreported) == []  # a Host that reports no usage is not asked
    assert contradictions(Evidence(tier="l2", usage=handed, model_usage=handed)) == []
    swapped = Evidence(
        tier="l2", usage=Usage(input_tokens=2, output_tokens=204), model_usage=handed
    )
    assert contradictions(swapped) == [
        "reported usage not handed: the runtime reported 2 input and 204 output tokens, but the "
        "binding's replies carried 204 and 2"
    ]


def test_usage_the_runtime_testifies_to_is_held_to_the_binding_zero_included() -> None:
    handed = Usage(input_tokens=204, output_tokens=2)
    lost = Evidence(tier="l2", model_usage=handed, testimony=Testimony(usage=Usage()))
    assert contradictions(lost) == [
        "reported usage not handed: the runtime reported 0 input and 0 output tokens, but the "
        "binding's replies carried 204 and 2"
    ]
    kept = Evidence(tier="l2", model_usage=handed, testimony=Testimony(usage=handed))
    assert contradictions(kept) == []


def test_a_cut_preview_is_not_a_contradiction_but_other_arguments_are() -> None:
    cut = ToolCall(call_id="c1", name="lookup_ticket", arguments=None)
    assert (
        contradictions(
            Evidence(tier="l2", tool_calls=[CALL], testimony=Testimony(tool_calls=[cut]))
        )
        == []
    )
    other = ToolCall(call_id="c1", name="lookup_ticket", arguments={"ticketId": "T-2"})
    (line,) = contradictions(
        Evidence(tier="l2", tool_calls=[CALL], testimony=Testimony(tool_calls=[other]))
    )
    assert line.startswith("recorded call not received: ")
    assert '{"ticketId":"T-2"}, but the Tool received {"ticketId":"T-1"}' in line


def test_a_denial_the_tool_itself_gave_is_no_contradiction() -> None:
    by_tool = Denial(call_id="c1", name="lookup_ticket", arguments={}, reason="no", source="tool")
    assert contradictions(Evidence(tier="l2", tool_calls=[CALL], denials=[by_tool])) == []
    gated = Denial(call_id="c1", name="lookup_ticket", arguments={}, reason="no", source="guard")
    (line,) = contradictions(Evidence(tier="l2", tool_calls=[CALL], denials=[gated]))
    assert "as denied by guard, but the Tool received it" in line


def test_a_contradiction_fails_a_trial_whose_expectations_all_pass() -> None:
    evidence = Evidence(tier="l2", model_requests=[SENT], testimony=Testimony(model_calls=0))
    base = TrialResult(case_id="c", trial=1, outcome="errored")
    decided = decide(base, evidence, [], {})
    assert decided.outcome == "failed" and not decided.vacuous
    assert decided.contradictions == [
        "reported model calls not counted: the runtime reported 0 model call(s), but the "
        "binding received 1 request(s)"
    ]


def test_a_raising_family_check_errors_the_trial() -> None:
    def broken(_evidence: Evidence) -> list[str]:
        raise KeyError("payload")

    base = TrialResult(case_id="c", trial=1, outcome="errored")
    decided = decide(base, Evidence(tier="l2"), [], {}, [WitnessCheck("broken", broken)])
    assert decided.outcome == "errored"
    assert (
        decided.error is not None and "the witness check 'broken' raised KeyError" in decided.error
    )


def _answered(tools: list[str], *calls: RepliedCall) -> Evidence:
    request = ModelRequest(system="s", messages=[], tools=tools, replied=list(calls))
    return Evidence(tier="l2", model_requests=[SENT, request])


def test_a_scripted_call_to_a_tool_the_request_did_not_offer_fails_the_trial() -> None:
    called = RepliedCall(call_id="c7", name="refund_order")
    assert contradictions(_answered(["refund_order", "lookup_order"], called)) == []
    (line,) = contradictions(_answered(["lookup_order"], called))
    assert line == (
        'scripted call not offered: the script calls "refund_order" (call c7) in reply to model '
        'request #2, but that request offered "lookup_order"; a Tool the agent is not offered '
        'is called on purpose only when the call says "unoffered": true'
    )
    decided = decide(
        TrialResult(case_id="c", trial=1, outcome="errored"), _answered([], called), [], {}
    )
    assert decided.outcome == "failed"
    assert "that request offered no Tools" in decided.contradictions[0]


def test_a_call_the_script_marks_unoffered_is_no_contradiction() -> None:
    meant = RepliedCall(call_id="c1", name="web_fetch", unoffered=True)
    assert contradictions(_answered(["lookup_order"], meant)) == []


def test_the_witness_type_names_every_witness_and_no_other() -> None:
    """``KindSpec.witness`` is typed by :data:`Witness`, so mypy refuses a family naming a
    witness the loader would refuse: the type and the described table are one list."""
    assert list(get_args(Witness)) == list(WITNESSES)
    assert TESTIMONY in WITNESSES
