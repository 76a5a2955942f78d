"""The ``eval`` console script: ``eval --help`` from its kept rendering when nothing it was made
from has changed (:mod:`~eval_core._cli.help_cache`), without importing the CLI; else the CLI
(:func:`eval_core._cli.cli.main`)."""

from __future__ import annotations

import sys
from typing import NoReturn


def main() -> NoReturn:
    from eval_core._cli import help_cache, streams

    guarded = streams.guard()  # a closed or full stdout/stderr: one line, never a traceback
    argv = sys.argv[1:]
    if argv in help_cache.HELP:
        text = help_cache.kept(argv)
        if text is not None:
            sys.stdout.write(text)
            raise SystemExit(streams.finish(0, guarded))
    from eval_core._cli.cli import main as cli

    cli(guarded)
