"""`eval compare`: the delta between two saved Scorecards (or Baselines), refused alike."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from eval_core.commands import COMPARISON_REFUSED, Refused, is_clean
from eval_core.records import Scorecard, clean
from eval_release import baseline as baselines
from eval_release import delta as deltas


def compare(before: Path, after: Path, out: TextIO | None = None) -> int:
    """`eval compare`: the delta between two saved Scorecards (or Baselines), same refusals."""
    out = out or sys.stdout
    (old, version), (new, _) = (_scorecard_of(path) for path in (before, after))
    try:
        delta = deltas.compare(old, new, version or "")
    except deltas.ComparisonRefused as exc:
        raise Refused(f"REFUSED  no delta computed: {exc}", COMPARISON_REFUSED) from None
    earlier = (
        f"the Scorecard {before} was swept"
        if version is None
        else f"the Baseline {before} was promoted"
    )
    dirty = version is not None and not is_clean(version)
    out.write(clean(deltas.render(delta, dirty, earlier)))
    regressed = delta.of("regressed")
    return 1 if regressed else 0


def _scorecard_of(path: Path) -> tuple[Scorecard, str | None]:
    """A saved Scorecard (``None``), or the Scorecard inside a Baseline with the Baseline's
    ``corpusCommit``."""
    try:
        return baselines.read_saved(path)
    except baselines.BaselineError as exc:
        raise Refused(str(exc)) from None
