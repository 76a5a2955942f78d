"""The release gate's public names: for a plug-in or a tool that reads Baselines, compares
Scorecards or judges a Matrix (eval-report does all three).

The Matrix's verdict and the verdict block are the Sweep's own (the core prints them); they are
named here too, beside the comparison they are read with.
"""

from __future__ import annotations

from eval_core.commands import Leg, covered, not_cleared_matrix, render_verdict
from eval_release.baseline import BaselineError, read_saved
from eval_release.baseline import read as read_baseline
from eval_release.delta import CaseDelta, ComparisonRefused
from eval_release.delta import compare as compare_scorecards

__all__ = [
    "BaselineError",
    "CaseDelta",
    "ComparisonRefused",
    "Leg",
    "compare_scorecards",
    "covered",
    "not_cleared_matrix",
    "read_baseline",
    "read_saved",
    "render_verdict",
]
