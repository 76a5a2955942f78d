"""The core's witness checks: total over any Evidence, silent when testimony and witness agree
or either is missing, and a raising family check errors the Trial instead of deciding it."""

from __future__ import annotations

from hypothesis import given, settings

from eval_core._case.evidence import Denial, Evidence, ModelRequest, Testimony, ToolCall
from eval_core._case.witness import WitnessCheck, contradictions
from eval_core._kit.strategies import evidence_strategy
from eval_core._running.trial import TrialResult, decide

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
