"""The core's internals eval-record uses, imported in this one module and nowhere else.

A plug-in imports the core through ``eval_core.plugin``; that module is full (issue 48 splits
it by audience), and recording needs what no plug-in has needed before: to open a Corpus as
a command does, to run a Sweep as ``eval sweep`` does (the same pins, ceilings and spend
rules), to find the stale recorded Cases as ``eval check --drift`` does, and the types of a
script's steps and of its drift metadata. ``tests/test_boundaries.py`` allows these imports
here only, so they move to the public API in one place when it is split.
"""

from __future__ import annotations

from eval_core._case.case import ScriptedCall, StructuredStep
from eval_core._case.recorded import Recorded, recorded_from
from eval_core._loading.opening import Opened, Refused, locked_owners, open_corpus
from eval_core._loading.rules import runs_model
from eval_core._running.stale import stale_cases
from eval_core._sweeping.options import SweepOptions
from eval_core._sweeping.sweep import sweep
from eval_core._util.project import Project, is_cwd

__all__ = [
    "Opened",
    "Project",
    "Recorded",
    "Refused",
    "ScriptedCall",
    "StructuredStep",
    "SweepOptions",
    "is_cwd",
    "locked_owners",
    "open_corpus",
    "recorded_from",
    "runs_model",
    "stale_cases",
    "sweep",
]
