"""The rubric family's Judge prompt and reply rules: a malformed reply is never a low score."""

from __future__ import annotations

import pytest

from eval_core._case.evidence import Evidence, ToolCall
from eval_core._plugins.judge import JudgeError
from eval_core._plugins.plugins import load_plugins
from eval_expectations_rubric.judge_prompt import parse, prompt
from eval_expectations_rubric.rubric import RubricScore


def test_a_well_formed_reply() -> None:
    j = parse("REASONING: It names the refund window and the fee.\nSCORE: 4")
    assert (j.score, j.reasoning) == (4, "It names the refund window and the fee.")
    multi = parse("**REASONING:** first line\nsecond line\n**SCORE:** 5\n\n")
    assert (multi.score, multi.reasoning) == (5, "first line second line")


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("REASONING: fine", "no SCORE"),
        ("SCORE: 3", "no REASONING"),
        ("SCORE: 3\nREASONING: because", "not the last line"),
        ("SCORE: 2\nREASONING: because\nSCORE: 3", "scored before it reasoned"),
        ("REASONING: ok\nSCORE: four", "not a whole number"),
        ("REASONING: ok\nSCORE: 3.5", "not a whole number"),
        ("REASONING: ok\nSCORE: 6", "outside 1–5"),
        ("REASONING: ok\nSCORE: 0", "outside 1–5"),
        ("REASONING:\nSCORE: 5", "extreme score 5 with no reasoning"),
        ("REASONING:   \nSCORE: 1", "extreme score 1 with no reasoning"),
        ("", "no SCORE"),
    ],
)
def test_malformed_replies_are_judge_errors(reply: str, why: str) -> None:
    with pytest.raises(JudgeError, match=why):
        parse(reply)


def test_a_middle_score_may_have_empty_reasoning() -> None:
    assert parse("REASONING:\nSCORE: 3").score == 3


def test_the_prompt_shows_criteria_scale_what_was_given_and_the_answer() -> None:
    evidence = Evidence(
        tier="l2",
        system_prompt="You are Tulip, a florist's helper.",
        tool_calls=[ToolCall(call_id="1", name="lookup_order", arguments={"id": 7})],
    )
    text = prompt(["Names the order", "Is polite"], evidence, "Order 7 ships today.")
    assert "1. Names the order\n2. Is polite" in text
    assert "5 = fully meets every criterion" in text and "1 = does not meet" in text
    assert "You are Tulip, a florist's helper." in text
    assert '- lookup_order({"id": 7})' in text
    assert "Order 7 ships today." in text
    assert text.rstrip().endswith("SCORE: <an integer from 1 to 5>")


def test_rubric_values_are_checked_at_load() -> None:
    spec = load_plugins().kinds["rubric_score"]
    assert spec.check is not None
    problems = spec.check(RubricScore(criteria=[" "], min=6), None)  # type: ignore[arg-type]
    assert (".criteria[0]", "must be a non-empty string") in problems
    assert any(path == ".min" for path, _ in problems)
    assert spec.check(RubricScore(criteria=[], min=3), None) == [  # type: ignore[arg-type]
        (".criteria", "must list at least one criterion")
    ]
