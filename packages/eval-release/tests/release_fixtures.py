"""Hand-built Scorecards for the release-gate tests (Trials as a Host would report them)."""

from __future__ import annotations

from collections.abc import Iterable

from card_fixtures import tallied
from eval_core._running.scorecard import Scorecard, noise_floor
from eval_core._running.scoring import ExpectationResult
from eval_core._running.trial import Outcome, TrialResult

HASH = "a" * 64


def trial(case_id: str, outcome: Outcome, number: int = 1) -> TrialResult:
    expectations = [
        ExpectationResult(
            kind="output_contains",
            passed=outcome == "passed",
            detail="answer quoted here",
            expectation={"kind": "output_contains", "text": "x"},
        )
    ]
    return TrialResult(
        case_id=case_id,
        trial=number,
        outcome=outcome,
        expectations=[] if outcome == "errored" else expectations,
        error="model_rate_limited" if outcome == "errored" else None,
        unexercised="the guard was never reached" if outcome == "unexercised" else None,
        loop_status="completed",
    )


def scorecard(
    trials: Iterable[TrialResult],
    *,
    model: str = "m1",
    corpus_hash: str = HASH,
    corpus_cases: int | None = None,
) -> Scorecard:
    trials = list(trials)
    card = tallied(
        trials,
        corpus_hash=corpus_hash,
        model_id=model,
        binding="model",
        host="agent-runtime",
        corpus_commit="abc",
        started_at="2026-11-30T00:00:00+00:00",
        **({} if corpus_cases is None else {"corpus_cases": corpus_cases}),
    )
    card.noise = noise_floor(trials)
    return card
