"""The Sweep's own hooks: a gate plug-in judges each measured leg and writes its files.

The core knows no Baseline: ``--baseline``, ``--promote`` and ``--junit-xml`` are handed to the
plug-ins implementing :func:`~eval_core._plugins.hookspecs.eval_sweep_leg` and
:func:`~eval_core._plugins.hookspecs.eval_sweep_files` (eval-release ships them). Without one,
a Sweep sweeps, and the flags that need a gate are refused before the first Trial.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval_core._loading.opening import Refused
from eval_core._plugins.plugin_set import implementations
from eval_core._sweeping.leg import Run
from eval_core._sweeping.options import SweepOptions

if TYPE_CHECKING:
    from eval_core._loading.corpus import Corpus
    from eval_core._plugins.plugin_set import PluginSet

Written = tuple[str, Path, Callable[[], bytes]]
"""A file a plug-in writes after the Scorecard is on stdout: its flag, its path, its bytes."""


def check_gated(options: SweepOptions, found: PluginSet) -> None:
    """Flags only a gate plug-in acts on, refused when none is installed (never ignored)."""
    given = [
        flag
        for flag, value in (
            ("--baseline", options.baseline is not None),
            ("--promote", options.promote),
            ("--junit-xml", options.junit_xml is not None),
        )
        if value
    ]
    hook = "eval_sweep_files" if given == ["--junit-xml"] else "eval_sweep_leg"
    if given and not implementations(found, hook):
        raise Refused(
            f"{', '.join(given)}: no release gate is installed (a plug-in implementing "
            f"{hook}, such as eval-release); without it eval sweep only sweeps"
        )


def gate(
    found: PluginSet, options: SweepOptions, run: Run, commit: str, scrub: Callable[[bytes], bytes]
) -> None:
    """Every gate plug-in's judgement of one measured leg; one that raises blocks clearing."""
    for label, function in implementations(found, "eval_sweep_leg"):
        try:
            function(options=options, leg=run, commit=commit, scrub=scrub)
        except Exception as exc:
            run.reasons.append(
                f"plug-in {label} could not judge the leg {run.name}: {type(exc).__name__}: {exc}"
            )


def gated_outputs(
    found: PluginSet,
    options: SweepOptions,
    corpus: Corpus,
    runs: Sequence[Run],
    trials: Sequence[Any],
) -> tuple[list[Written], list[str]]:
    """The files gate plug-ins write, and a line for each plug-in that could not say."""
    files: list[Written] = []
    failures: list[str] = []
    for label, function in implementations(found, "eval_sweep_files"):
        try:
            made = list(function(options=options, corpus=corpus, legs=runs, trials=trials) or ())
            for flag, path, render in made:
                if not (isinstance(flag, str) and isinstance(path, Path) and callable(render)):
                    raise TypeError(f"eval_sweep_files returned {(flag, path)!r}")
        except Exception as exc:
            failures.append(
                f"eval: plug-in {label} could not name its files: {type(exc).__name__}: {exc}"
            )
            continue
        files.extend(made)
    return files, failures
