"""The release gate's internals eval-record uses, imported in this one module and nowhere else.

Recording runs a Sweep as ``eval sweep`` does (the same pins, ceilings and spend rules): the
gate's :func:`sweep` and its options. The gate moves to a package of its own (issue 48, branch
w/release), which will say how a plug-in reaches it; until then ``tests/test_boundaries.py``
allows these two imports here only. Everything else eval-record needs is public
(:mod:`eval_core.records`, :mod:`eval_core.commands`).
"""

from __future__ import annotations

from eval_core._release.options import SweepOptions
from eval_core._release.release import sweep

__all__ = ["SweepOptions", "sweep"]
