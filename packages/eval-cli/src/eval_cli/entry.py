"""The ``eval`` console script: ``eval --help`` from its kept rendering when nothing it was made
from has changed (:mod:`~eval_cli.help_cache`), without importing the CLI; else the CLI
(:func:`eval_cli.cli.main`).

The exit code is the command's own: once the command has returned it, a thread the system
under test started and left running (not a daemon) does not keep ``eval`` alive (a CI would
never see the Scorecard's verdict), and nothing the team's code does at interpreter exit can
change the code (:func:`_end`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import NoReturn


def main() -> NoReturn:
    from eval_cli import help_cache, streams

    guarded = streams.guard()  # a closed or full stdout/stderr: one line, never a traceback
    argv = sys.argv[1:]
    if argv in help_cache.HELP:
        text = help_cache.kept(argv)
        if text is not None:
            sys.stdout.write(text)
            raise SystemExit(streams.finish(0, guarded))
    from eval_cli.cli import main as cli

    try:
        cli(guarded)
    except SystemExit as done:
        _end(done)
        raise


def _end(done: SystemExit) -> None:
    """End now with the command's code when a non-daemon thread is still running."""
    main_thread = threading.main_thread()
    leaked = [t for t in threading.enumerate() if t is not main_thread and not t.daemon]
    if not leaked:
        return
    code = done.code if isinstance(done.code, int) else 0 if done.code is None else 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
