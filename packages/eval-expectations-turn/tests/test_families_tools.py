"""The tool-call family: pass, fail and not-observed for every kind, plus its value checks."""

from __future__ import annotations

from typing import Any

import pytest

from eval_core._case.evidence import Denial, Evidence, ToolCall
from eval_core._case.kinds import Expectation
from eval_expectations_turn.tools import (
    ToolArgumentAbsent,
    ToolArgumentEquals,
    ToolArgumentPresent,
    ToolCallCount,
    ToolCalled,
    ToolCallOrder,
    ToolCallsBatched,
    ToolDenied,
    ToolNotCalled,
    eval_kinds,
)
from turn_scoring import Scoring, ev

score = Scoring.of(eval_kinds())


def call(call_id: str, name: str, arguments: Any = None) -> ToolCall:
    return ToolCall(call_id=call_id, name=name, arguments=arguments)


CALLS = [
    call("c1", "ledger_read", {"account": "ops", "range": {"from": 1}}),
    call("c2", "web_fetch", {"url": "https://example.com"}),
    call("c3", "ledger_read", {"account": "payroll", "limit": 10.0}),
    call("c4", "send_email", "not an object"),
]
DENIALS = [
    Denial(
        call_id="d1",
        name="send_email",
        arguments={"to": ["cfo@example.com"]},
        reason="mutating Tool needs approval",
        source="autonomy",
    )
]


OBSERVED = ev(tool_calls=CALLS, tool_batches=[["c1"], ["c2", "c3"], ["c4"]], denials=DENIALS)
NOTHING = ev(tool_calls=[], tool_batches=[], denials=[])
UNOBSERVED = ev()


CASES = [
    (ToolCalled(name="web_fetch"), OBSERVED, True, "called: ledger_read(c1)"),
    (ToolCalled(name="file_read"), OBSERVED, False, '"file_read" was not called'),
    (ToolCalled(name="send_email"), NOTHING, False, "no tool was called"),
    (ToolCalled(name="x"), UNOBSERVED, False, "not observed"),
    (ToolNotCalled(name="file_read"), OBSERVED, True, "was not called"),
    (ToolNotCalled(name="ledger_read"), OBSERVED, False, "called 2 time(s)"),
    (ToolNotCalled(name="x"), UNOBSERVED, False, "not observed"),
    (ToolCallOrder(names=["ledger_read", "ledger_read", "send_email"]), OBSERVED, True, "in order"),
    (ToolCallOrder(names=["web_fetch", "ledger_read"]), OBSERVED, True, "in order"),
    (ToolCallOrder(names=["send_email", "web_fetch"]), OBSERVED, False, '"web_fetch" missing'),
    (ToolCallOrder(names=["a"]), UNOBSERVED, False, "not observed"),
    (
        ToolArgumentEquals(name="ledger_read", path="account", value="payroll"),
        OBSERVED,
        True,
        "c3",
    ),
    (ToolArgumentEquals(name="ledger_read", path="limit", value=10), OBSERVED, True, "= 10.0"),
    (ToolArgumentEquals(name="ledger_read", path="$.range.from", value=1), OBSERVED, True, "c1"),
    (
        ToolArgumentEquals(name="ledger_read", path="account", value="hr"),
        OBSERVED,
        False,
        'c1: "ops"; c3: "payroll"',
    ),
    (
        ToolArgumentEquals(name="ledger_read", path="limit", value=True),
        OBSERVED,
        False,
        "(missing)",
    ),
    (ToolArgumentEquals(name="file_read", path="a", value=1), OBSERVED, False, "not called"),
    (ToolArgumentEquals(name="x", path="a", value=1), UNOBSERVED, False, "not observed"),
    (ToolArgumentPresent(name="ledger_read", path="range.from"), OBSERVED, True, "c1"),
    (ToolArgumentPresent(name="ledger_read", path="range.to"), OBSERVED, False, "no call"),
    (ToolArgumentPresent(name="send_email", path="to"), OBSERVED, False, "no call"),
    (ToolArgumentPresent(name="x", path="a"), UNOBSERVED, False, "not observed"),
    (ToolArgumentAbsent(name="ledger_read", path="password"), OBSERVED, True, "none of 2"),
    (ToolArgumentAbsent(name="ledger_read", path="limit"), OBSERVED, False, "1 of 2"),
    (ToolArgumentAbsent(name="file_read", path="a"), OBSERVED, False, "not exercised"),
    (ToolArgumentAbsent(name="x", path="a"), UNOBSERVED, False, "not observed"),
    (ToolCallCount(count=4), OBSERVED, True, "send_email(c4)"),
    (ToolCallCount(count=0), NOTHING, True, "no tool was called"),
    (
        ToolCallCount(count=0),
        OBSERVED,
        False,
        "4 tool call(s), expected 0; called: ledger_read(c1)",
    ),
    (ToolCallCount(count=0), UNOBSERVED, False, "not observed"),
    (ToolCallsBatched(min=2), OBSERVED, True, "largest batch had 2"),
    (ToolCallsBatched(min=3), OBSERVED, False, "[c2, c3]"),
    (ToolCallsBatched(min=2), NOTHING, False, "batches: none"),
    (ToolCallsBatched(min=2), UNOBSERVED, False, "not observed"),
    (
        ToolDenied(name="send_email", path="to.0", value="cfo@example.com"),
        OBSERVED,
        True,
        "mutating Tool needs approval",
    ),
    (ToolDenied(name="send_email", path="to", value=["ceo@example.com"]), OBSERVED, False, "d1"),
    (ToolDenied(name="web_fetch", path="url", value="x"), OBSERVED, False, "send_email"),
    (ToolDenied(name="x", path="a", value=1), UNOBSERVED, False, "not observed"),
]


@pytest.mark.parametrize(("e", "evidence", "expected", "needle"), CASES)
def test_scoring(e: Expectation, evidence: Evidence, expected: bool, needle: str) -> None:
    score.row(e, evidence, expected, needle)


def test_every_kind_has_pass_fail_and_not_observed() -> None:
    score.covers(CASES, UNOBSERVED)


def test_denied_calls_are_not_calls_but_are_mentioned() -> None:
    evidence = ev(tool_calls=[], denials=DENIALS)
    ok, detail = score(ToolCalled(name="send_email"), evidence)
    assert not ok and "denied before reaching the Tool" in detail


def _check(e: Expectation) -> list[str]:
    check = score.specs[type(e)].check
    assert check is not None
    return [suffix for suffix, _ in check(e, None)]


def test_checks() -> None:
    assert _check(ToolCalled(name="a")) == []
    assert _check(ToolCalled(name="")) == [".name"]
    assert _check(ToolNotCalled(name=" ")) == [".name"]
    assert _check(ToolCallOrder(names=["a", "b"])) == []
    assert _check(ToolCallOrder(names=[])) == [".names"]
    assert _check(ToolCallOrder(names=["a", ""])) == [".names[1]"]
    assert _check(ToolArgumentEquals(name="a", path="b", value=None)) == []
    assert _check(ToolArgumentEquals(name="", path="", value=None)) == [".name", ".path"]
    assert _check(ToolArgumentPresent(name="a", path="b..c")) == [".path"]
    assert _check(ToolArgumentAbsent(name="a", path="")) == [".path"]
    assert _check(ToolCallCount(count=0)) == []
    assert _check(ToolCallCount(count=-1)) == [".count"]
    assert _check(ToolCallsBatched(min=2)) == []
    assert _check(ToolCallsBatched(min=1)) == [".min"]
    assert _check(ToolDenied(name="a", path="", value=1)) == [".path"]
