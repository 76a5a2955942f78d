"""The core's internals eval-release uses, imported in this one module and nowhere else.

A plug-in imports the core through the public module of its audience (``eval_core.kinds``,
``eval_core.commands``, ...), and the release gate needs what no family needs: the Sweep's
flags and legs (the types its hooks are called with), the Matrix's verdict and the verdict
block (the Sweep prints them; eval-report reads them through :mod:`eval_release.api`), the
refusal and exit code of a comparison, whether a commit is clean, where the repository's root
is, and the bound on a Scorecard's Trials.
``tests/test_boundaries.py`` allows these imports here only, so they move to a public module in
one place.
"""

from __future__ import annotations

from eval_core._loading.opening import COMPARISON_REFUSED, Refused
from eval_core._sweeping.leg import Run
from eval_core._sweeping.matrix import Leg, covered, not_cleared_matrix
from eval_core._sweeping.options import SweepOptions
from eval_core._sweeping.render import render_verdict
from eval_core._util.limits import MAX_PLANNED_TRIALS
from eval_core._util.provenance import is_clean, repository_root

__all__ = [
    "COMPARISON_REFUSED",
    "MAX_PLANNED_TRIALS",
    "Leg",
    "Refused",
    "Run",
    "SweepOptions",
    "covered",
    "is_clean",
    "not_cleared_matrix",
    "render_verdict",
    "repository_root",
]
