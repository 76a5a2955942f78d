"""A Case's verdict from its Trials, as the rule says it, whatever their number (the one-Trial
shortcut included): any errored is ERR, then any vacuous VAC, all unexercised UNEX, all passed
PASS, anything else FAIL."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from eval_core._running.scorecard import Scorecard, case_verdict, not_cleared
from eval_core._running.trial import TrialResult

TRIALS = st.builds(
    TrialResult,
    case_id=st.just("c"),
    trial=st.integers(1, 3),
    outcome=st.sampled_from(["passed", "failed", "errored", "unexercised"]),
    vacuous=st.booleans(),
)


def _rule(trials: list[TrialResult]) -> str:
    if not trials:
        return "-"
    if any(t.outcome == "errored" for t in trials):
        return "ERR"
    if any(t.vacuous for t in trials):
        return "VAC"
    if all(t.outcome == "unexercised" for t in trials):
        return "UNEX"
    return "PASS" if all(t.outcome == "passed" for t in trials) else "FAIL"


@given(st.lists(TRIALS, max_size=3))
def test_a_case_verdict_is_the_rule(trials: list[TrialResult]) -> None:
    assert case_verdict(trials) == _rule(trials)


def test_a_case_that_never_ran_is_counted_once() -> None:
    card = Scorecard(
        corpus_hash="h",
        suite="capability",
        model_id="m",
        binding="scripted",
        host="agent-runtime",
        corpus_cases=3,
        started_at="t",
    )
    card.trials.append(TrialResult(case_id="a", trial=1, outcome="passed"))
    assert not_cleared(card) == ["m: 2 Case(s) never ran"]
