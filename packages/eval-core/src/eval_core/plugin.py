"""Transitional: the release gate's public names, until they move with the gate to a package
of its own (issue 48, branch w/release). Nothing else is here: a plug-in imports the core from
the module of its audience (:mod:`eval_core.kinds`, :mod:`eval_core.hosts`,
:mod:`eval_core.records`, :mod:`eval_core.commands`, :mod:`eval_core.testing`).
"""

from __future__ import annotations

from eval_core._release.baseline import BaselineError, read_saved
from eval_core._release.baseline import read as read_baseline
from eval_core._release.delta import CaseDelta, ComparisonRefused
from eval_core._release.delta import compare as compare_scorecards
from eval_core._release.matrix import Leg, covered, not_cleared_matrix
from eval_core._release.render import render_verdict

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
