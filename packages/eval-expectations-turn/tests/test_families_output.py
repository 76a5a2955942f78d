"""The output family: the final answer, case-insensitive, quoted on failure."""

from __future__ import annotations

from typing import Any

import pytest

from eval_core._case.evidence import Evidence
from eval_core._case.kinds import Expectation
from eval_expectations_turn.output import (
    OutputAbsent,
    OutputContains,
    OutputFieldEquals,
    OutputMatches,
    OutputOmits,
    answer_text,
    eval_kinds,
)
from turn_scoring import Scoring, ev

score = Scoring.of(eval_kinds())
ANSWER = "The invoice total is  EUR 1,200.\nPaid on 2024-05-01."
QUOTED = 'answer "The invoice total is EUR 1,200. Paid on 2024-05-01."'


def text(answer: str) -> Evidence:
    return ev(output_text=answer, output_kind="text")


NO_TEXT = [
    ev(),
    ev(output_kind="text"),
    ev(output_kind="tool_calls", output_text="I'll call a tool"),
    ev(output_kind="none"),
]
KINDS: list[Expectation] = [
    OutputContains(text="invoice"),
    OutputOmits(text="secret"),
    OutputMatches(pattern="total"),
    OutputFieldEquals(path="$", value=None),
]


@pytest.mark.parametrize("e", KINDS, ids=lambda e: e.kind_name)
@pytest.mark.parametrize("evidence", NO_TEXT, ids=["unobserved", "text-none", "tool_calls", "none"])
def test_no_answer_fails_every_kind(e: Expectation, evidence: Evidence) -> None:
    ok, detail = score(e, evidence)
    assert not ok
    assert "answer" in detail or "tool calls" in detail


CASES = [
    (OutputContains(text="eur 1,200"), text(ANSWER), True),
    (OutputContains(text="refund"), text(ANSWER), False),
    (OutputOmits(text="refund"), text(ANSWER), True),
    (OutputOmits(text="INVOICE"), text(ANSWER), False),
    (OutputMatches(pattern=r"paid on \d{4}-\d\d-\d\d"), text(ANSWER), True),
    (OutputMatches(pattern=r"unpaid"), text(ANSWER), False),
    (OutputMatches(pattern=r"("), text(ANSWER), False),
]


@pytest.mark.parametrize(("e", "evidence", "expected"), CASES)
def test_text_kinds(e: Expectation, evidence: Evidence, expected: bool) -> None:
    ok, detail = score(e, evidence)
    assert ok is expected, detail
    assert QUOTED in detail, "details quote what the model said"


@pytest.mark.parametrize(
    ("evidence", "expected", "said"),
    [
        (ev(output_kind="none"), True, "the model gave no final answer"),
        (ev(output_kind="tool_calls", output_text="I'll call"), True, "ended with tool calls"),
        (text(ANSWER), False, QUOTED.replace("answer ", "the Trial answered ", 1)),
        (text(""), False, 'the Trial answered ""'),
        (ev(output_kind="structured", output_structured={"n": 1}), False, '{"n":1}'),
        (ev(), False, "final answer not observed; cannot confirm there is no answer"),
        (ev(output_kind="text"), False, "cannot confirm there is no answer"),
    ],
    ids=["none", "tool_calls", "text", "empty", "structured", "unobserved", "text-none"],
)
def test_output_absent_passes_only_where_the_host_returned_no_answer(
    evidence: Evidence, expected: bool, said: str
) -> None:
    ok, detail = score(OutputAbsent(), evidence)
    assert ok is expected, detail
    assert said in detail


def test_invalid_pattern_says_so() -> None:
    assert "does not compile" in score(OutputMatches(pattern="(["), text(ANSWER))[1]


def test_long_answers_are_quoted_on_one_line_and_cut() -> None:
    _, detail = score(OutputContains(text="zzz"), text("word\n" * 200))
    assert "\n" not in detail
    assert "…" in detail
    assert len(detail) < 320


def test_structured_answer_is_its_compact_json() -> None:
    evidence = ev(output_kind="structured", output_structured={"status": "Paid", "n": 1})
    assert answer_text(evidence) == ('{"status":"Paid","n":1}', "")
    assert score(OutputContains(text='"status":"paid"'), evidence)[0]
    assert score(OutputFieldEquals(path="n", value=1.0), evidence)[0]
    assert not score(OutputFieldEquals(path="n", value=True), evidence)[0]


FIELD_CASES = [
    ('```json\n{"total": 1200, "items": [{"sku": "A"}]}\n```', "items.0.sku", "A", True),
    ('Result: {"total": 1200.0} ok', "total", 1200, True),
    ('{"total": 1200}', "$.total", 1200, True),
    ("[1, 2, 3]", "$", [1, 2, 3], True),
    ('{"ok": true}', "ok", 1, False),
    ('{"total": 1200}', "total", 1300, False),
]


@pytest.mark.parametrize(("answer", "path", "value", "expected"), FIELD_CASES)
def test_field_equals(answer: str, path: str, value: Any, expected: bool) -> None:
    ok, detail = score(OutputFieldEquals(path=path, value=value), text(answer))
    assert ok is expected, detail
    if not expected:
        assert "expected" in detail and 'answer "' in detail


def test_field_equals_missing_path_and_no_json() -> None:
    ok, detail = score(OutputFieldEquals(path="a.b", value=1), text('{"a": {}}'))
    assert not ok and "missing" in detail and 'answer "{"a": {}}"' in detail
    ok, detail = score(OutputFieldEquals(path="a", value=1), text("no json at all"))
    assert not ok and "no parsable JSON" in detail and 'answer "no json at all"' in detail


def test_field_equals_null_is_a_value_not_a_missing_path() -> None:
    assert score(OutputFieldEquals(path="a", value=None), text('{"a": null}'))[0]
    assert not score(OutputFieldEquals(path="b", value=None), text('{"a": null}'))[0]


def _check(e: Expectation) -> list[tuple[str, str]]:
    check = score.specs[type(e)].check
    assert check is not None
    return list(check(e, None))


def test_checks() -> None:
    assert _check(OutputContains(text="x")) == []
    assert _check(OutputContains(text="")) == [(".text", "must be a non-empty string")]
    assert _check(OutputOmits(text="x", ungrounded="")) == [
        (".ungrounded", "when present, must be a non-empty reason")
    ]
    assert _check(OutputOmits(text="x", ungrounded="the model invents it")) == []
    assert _check(OutputMatches(pattern=r"\d+")) == []
    assert [p for p, _ in _check(OutputMatches(pattern=""))] == [".pattern"]
    assert [p for p, _ in _check(OutputMatches(pattern="(", ungrounded=" "))] == [
        ".pattern",
        ".ungrounded",
    ]
    assert _check(OutputFieldEquals(path="a.0", value=1)) == []
    assert [p for p, _ in _check(OutputFieldEquals(path="", value=1))] == [".path"]
    assert [p for p, _ in _check(OutputFieldEquals(path="a..b", value=1))] == [".path"]
