"""Transitional: the release gate's public names, until they move with the gate to a package
of its own (issue 48, branch w/release). Nothing else is here: a plug-in imports the core from
the module of its audience (:mod:`eval_core.kinds`, :mod:`eval_core.hosts`,
:mod:`eval_core.records`, :mod:`eval_core.commands`, :mod:`eval_core.testing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._release.baseline import BaselineError, read_saved
    from eval_core._release.baseline import read as read_baseline
    from eval_core._release.delta import CaseDelta, ComparisonRefused
    from eval_core._release.delta import compare as compare_scorecards
    from eval_core._release.matrix import Leg, covered, not_cleared_matrix
    from eval_core._release.render import render_verdict

WHERE = {
    "BaselineError": "eval_core._release.baseline:BaselineError",
    "CaseDelta": "eval_core._release.delta:CaseDelta",
    "ComparisonRefused": "eval_core._release.delta:ComparisonRefused",
    "Leg": "eval_core._release.matrix:Leg",
    "compare_scorecards": "eval_core._release.delta:compare",
    "covered": "eval_core._release.matrix:covered",
    "not_cleared_matrix": "eval_core._release.matrix:not_cleared_matrix",
    "read_baseline": "eval_core._release.baseline:read",
    "read_saved": "eval_core._release.baseline:read_saved",
    "render_verdict": "eval_core._release.render:render_verdict",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

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

__getattr__ = Public(__name__, WHERE)


def __dir__() -> list[str]:
    return __all__
