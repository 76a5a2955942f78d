"""The guardrail and status families: pass, fail and not-observed for every kind."""

from __future__ import annotations

from typing import Any

import pytest

from eval_core._case.evidence import Evidence, GuardDecision
from eval_core._case.kinds import Expectation
from eval_expectations_turn import guardrails, status
from eval_expectations_turn.guardrails import GuardrailAllowed, GuardrailBlocked
from eval_expectations_turn.status import LoopStatus
from turn_scoring import Scoring, ev

score = Scoring.of(guardrails.eval_kinds(), status.eval_kinds())


def decision(stage: Any, guard: str, blocked: bool, detail: str = "") -> GuardDecision:
    return GuardDecision(stage=stage, guard=guard, blocked=blocked, detail=detail)


DECISIONS = ev(
    guard_decisions=[
        decision("input", "prompt_injection", False),
        decision("input", "content_filter", False),
        decision("tool_result", "untrusted_content", True, "instructions inside a web page"),
        decision("tool_call", "tool_blocklist", False),
    ]
)
QUIET = ev(guard_decisions=[])
UNOBSERVED = ev()


CASES = [
    (
        GuardrailBlocked(stage="tool_result", guard="untrusted_content"),
        DECISIONS,
        True,
        "fired: untrusted_content at tool_result (turn 1): instructions inside a web page",
    ),
    (
        GuardrailBlocked(stage="tool_result", guard="untrusted_content", detail="a web page"),
        DECISIONS,
        True,
        "untrusted_content blocked at tool_result",
    ),
    (
        GuardrailBlocked(stage="tool_result", guard="untrusted_content", detail="a ticket note"),
        DECISIONS,
        False,
        'but no block\'s detail contains "a ticket note"; fired: untrusted_content',
    ),
    (
        # an allowed decision's detail never stands for a block's
        GuardrailBlocked(stage="tool_call", guard="tool_blocklist", detail=""),
        DECISIONS,
        False,
        "it checked tool_call and allowed",
    ),
    (
        GuardrailBlocked(stage="tool_call", guard="tool_blocklist"),
        DECISIONS,
        False,
        "it checked tool_call and allowed",
    ),
    (
        GuardrailBlocked(stage="output", guard="content_filter"),
        DECISIONS,
        False,
        "never checked output); fired: untrusted_content",
    ),
    (
        GuardrailBlocked(stage="input", guard="prompt_injection"),
        QUIET,
        False,
        "no guard fired in the Trial",
    ),
    (GuardrailBlocked(stage="input", guard="prompt_injection"), UNOBSERVED, False, "not observed"),
    (GuardrailAllowed(stage="input"), DECISIONS, True, "2 decision(s) at input, none blocked"),
    (GuardrailAllowed(stage="tool_result"), DECISIONS, False, "1 of 1 decision(s)"),
    (GuardrailAllowed(stage="output"), DECISIONS, False, "stage never checked"),
    (GuardrailAllowed(stage="input"), UNOBSERVED, False, "not observed"),
    (
        LoopStatus(status="completed"),
        ev(loop_status="completed", loop_reason="final answer"),
        True,
        '"completed" (reason: "final answer")',
    ),
    (
        LoopStatus(status="completed"),
        ev(loop_status="failed", loop_reason="iteration_limit"),
        False,
        '"failed" (reason: "iteration_limit"), expected "completed"',
    ),
    (LoopStatus(status="completed"), UNOBSERVED, False, "not observed"),
    (
        LoopStatus(status="failed", reason="iteration_limit"),
        ev(loop_status="failed", loop_reason="iteration_limit"),
        True,
        '"failed" (reason: "iteration_limit")',
    ),
    (
        LoopStatus(status="failed", reason="tool_call_limit"),
        ev(loop_status="failed", loop_reason="iteration_limit"),
        False,
        'expected "failed" ("tool_call_limit")',
    ),
]


@pytest.mark.parametrize(("e", "evidence", "expected", "needle"), CASES)
def test_scoring(e: Expectation, evidence: Evidence, expected: bool, needle: str) -> None:
    score.row(e, evidence, expected, needle)


def test_every_kind_has_pass_fail_and_not_observed() -> None:
    score.covers(CASES, UNOBSERVED)


def test_a_blank_block_detail_is_refused() -> None:
    check = score.specs[GuardrailBlocked].check
    assert check is not None
    blocked = GuardrailBlocked(stage="input", guard="prompt_injection", detail=" ")
    assert [s for s, _ in check(blocked, None)] == [".detail"]
    found = GuardrailBlocked(stage="input", guard="prompt_injection", detail="order")
    assert list(check(found, None)) == []
    assert list(check(GuardrailBlocked(stage="input", guard="prompt_injection"), None)) == []


def test_status_check() -> None:
    check = score.specs[LoopStatus].check
    assert check is not None
    assert list(check(LoopStatus(status="completed"), None)) == []
    assert [s for s, _ in check(LoopStatus(status=""), None)] == [".status"]
