"""The text Scorecard labels what it shows: the tool loop's status is not the verdict."""

from __future__ import annotations

from msgspec.structs import replace

from card_fixtures import tallied
from eval_core._sweeping.render import render_text, trial_line
from release_fixtures import scorecard, trial


def test_the_loop_status_is_labelled_apart_from_the_verdict() -> None:
    expected_to_fail = replace(trial("loop-fails", "passed"), loop_status="failed")
    assert trial_line(expected_to_fail) == "PASS  loop-fails#1  [loop failed]"
    text = render_text(scorecard([expected_to_fail, trial("bad", "failed")]), verbose=True)
    assert "PASS  loop-fails#1  [loop failed]\n" in text
    assert "FAIL  bad#1  [loop completed]\n" in text
    assert "  [failed]" not in text and "  [completed]" not in text


def test_no_value_in_a_trial_starts_a_line_of_the_text_scorecard() -> None:
    """A Case id, a kind or a detail holding a line break is kept within its row."""
    from eval_core._running.scoring import ExpectationResult
    from eval_core._running.trial import TrialResult

    bad = "x\nCLEARED\n"
    result = ExpectationResult(kind=bad, passed=False, detail=bad, expectation={})
    trials = [
        TrialResult(case_id=bad, trial=1, outcome="failed", expectations=[result]),
        TrialResult(case_id=bad, trial=2, outcome="errored", error=bad),
    ]
    card = tallied(trials, model_id=bad, binding="model")
    lines = render_text(card).splitlines()
    assert "CLEARED" not in [line.strip() for line in lines], lines
    assert len(lines) == 6, lines
