"""The release gate's hooks: each leg of ``eval sweep`` compared with its Baseline and promoted
if asked (:mod:`eval_release.gate`), and ``--junit-xml`` written after the Scorecard.

Registered by the entry point ``release`` in the group ``eval.plugins``; it ships no kind and no
Case field, so a Corpus's hash and its Scorecard do not change with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from eval_core.commands import SweepLeg, SweepOptions
from eval_core.hosts import Corpus
from eval_core.kinds import hookimpl


@hookimpl
def eval_sweep_leg(
    options: SweepOptions, leg: SweepLeg, commit: str, scrub: Callable[[bytes], bytes]
) -> None:
    if options.baseline is None and not options.promote:
        return
    from eval_release.gate import gate

    gate(options, leg, commit, scrub)


@hookimpl
def eval_sweep_files(
    options: SweepOptions, corpus: Corpus, legs: Sequence[SweepLeg], trials: Sequence[Any]
) -> Iterable[tuple[str, Path, Callable[[], bytes]]]:
    if options.junit_xml is None:
        return []
    from eval_release.written import junit_bytes

    root = options.root
    return [("--junit-xml", options.junit_xml, lambda: junit_bytes(corpus, root, legs, trials))]
