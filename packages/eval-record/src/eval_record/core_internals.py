"""The core's internals eval-record uses, imported in this one module and nowhere else.

Recording runs a Sweep as ``eval sweep`` does (the same pins, ceilings and spend rules): the
Sweep driver's :func:`sweep` and its options, which no public module offers yet (issue 48:
they would belong to :mod:`eval_core.commands`). ``tests/test_boundaries.py`` allows these two
imports here only; everything else eval-record needs is public (:mod:`eval_core.records`,
:mod:`eval_core.commands`).
"""

from __future__ import annotations

from eval_core._sweeping.options import SweepOptions
from eval_core._sweeping.sweep import sweep

__all__ = ["SweepOptions", "sweep"]
