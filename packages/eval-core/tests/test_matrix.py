"""The Matrix renders a control: disagreement, coverage, and an unavailable leg kept apart."""

from __future__ import annotations

from eval_core._sweeping.matrix import Leg, not_cleared_matrix, render, unavailable_reason
from release_fixtures import scorecard, trial

CASES = ["agree", "differ", "guard", "vendor"]


def legs() -> list[Leg]:
    a = scorecard(
        [
            trial("agree", "passed"),
            trial("differ", "passed"),
            trial("guard", "unexercised"),
            trial("vendor", "errored"),
        ],
        model="alpha",
    )
    b = scorecard(
        [
            trial("agree", "passed"),
            trial("differ", "failed"),
            trial("guard", "passed"),
            trial("vendor", "passed"),
        ],
        model="beta",
    )
    return [Leg("alpha", a), Leg("beta", b)]


def test_the_grid_disagreement_coverage_and_not_comparable() -> None:
    text = render(legs(), CASES, "f" * 64, 12)
    assert text.startswith("Matrix  corpus=ffffffffffffffff  2 models  12ms")
    assert "DISAGREEMENT  1 of 2 comparable Cases" in text
    assert "not a ranking" in text
    assert "  differ  alpha=PASS  beta=FAIL" in text
    assert "GUARD COVERED  guard" in text
    assert "NOT COMPARABLE\n  vendor  alpha=ERR  beta=PASS" in text


def test_a_covered_guard_does_not_block_but_failures_and_errors_do() -> None:
    reasons = not_cleared_matrix(legs())
    assert "alpha: 1 Case(s) errored" in reasons
    assert "beta: 1 Case(s) failed" in reasons
    assert not any("guard" in r for r in reasons)


def test_a_leg_whose_every_trial_errored_is_unavailable_and_keeps_the_other() -> None:
    down = scorecard([trial(c, "errored") for c in CASES], model="down")
    reason = unavailable_reason(down)
    assert reason is not None
    assert reason.startswith("every Trial errored: model_rate_limited")
    up = legs()[1]
    matrix = [Leg("down", down, reason), up]
    text = render(matrix, CASES, "f" * 64, 1)
    [row] = [line for line in text.splitlines() if line.startswith("agree ")]
    assert row.split() == ["agree", "n/a", "PASS"]
    assert "down  NOT MEASURED  every Trial errored" in text
    assert "beta" in text
    assert "down: never measured (every Trial errored" in not_cleared_matrix(matrix)[0]


def test_an_uncovered_guard_blocks() -> None:
    a = scorecard([trial("guard", "unexercised")], model="alpha")
    b = scorecard([trial("guard", "unexercised")], model="beta")
    matrix = [Leg("alpha", a), Leg("beta", b)]
    assert "GUARD UNCOVERED  guard" in render(matrix, ["guard"], "f" * 64, 1)
    assert "no model exercised the guard on guard" in not_cleared_matrix(matrix)
