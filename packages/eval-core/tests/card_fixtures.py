"""A Scorecard for a test, shared by every package's tests: the fields no test looks at filled
once, the ones it does passed by name, and the counts tallied from its Trials as a Sweep's are."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from eval_core.records import Scorecard, TrialResult

PLACEHOLDERS: dict[str, Any] = {
    "corpus_hash": "a" * 64,
    "suite": "capability",
    "model_id": "scripted",
    "binding": "scripted",
    "host": "h",
    "corpus_commit": "c",
    "started_at": "t",
}


def tallied(trials: Iterable[TrialResult] = (), **fields: Any) -> Scorecard:
    """A tallied Scorecard of ``trials``: as many Cases as their ids and one planned Trial each
    unless ``fields`` says otherwise, every other field a placeholder ``fields`` may replace."""
    trials = list(trials)
    counts = {"corpus_cases": len({t.case_id for t in trials}), "planned": len(trials)}
    card = Scorecard(**{**PLACEHOLDERS, **counts, "trials": trials, **fields})
    card.tally()
    return card
