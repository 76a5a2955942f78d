"""Progress on stderr, never stdout: the Scorecard on stdout is an artifact programs parse.

A terminal gets a live rich status line; anything else (CI logs, pipes) gets one plain line per
Trial so the log stays greppable. Every line passes through :func:`~eval_core.safe_text.clean`
and is printed without rich markup, so a Case id can neither carry an escape sequence to the
terminal nor be read as markup.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from eval_core.safe_text import clean
from eval_core.trial import TrialResult

_LABEL = {"passed": "PASS", "failed": "FAIL", "errored": "ERR", "unexercised": "UNEX"}


class Progress:
    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self._live: Any = None
        if not quiet and self.stream.isatty():
            from rich.console import Console
            from rich.status import Status

            self._live = Status("starting", console=Console(file=self.stream))
            self._live.start()

    def trial(self, index: int, total: int, result: TrialResult) -> None:
        if self.quiet:
            return
        line = clean(
            f"[{index}/{total}] {result.case_id}#{result.trial} "
            f"{_LABEL[result.outcome]} {result.duration_ms / 1000:.2f}s"
        )
        if self._live is not None:
            from rich.text import Text

            self._live.update(Text(line))
            if result.outcome != "passed":
                self._live.console.print(line, markup=False, highlight=False)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def note(self, text: str) -> None:
        text = clean(text)
        if self._live is not None:
            self._live.console.print(text, markup=False, highlight=False)
        elif not self.quiet:
            self.stream.write(text + "\n")
            self.stream.flush()

    def warn(self, text: str) -> None:
        """Like :meth:`note`, but shown even with ``--quiet``: something was changed or lost."""
        text = clean(text)
        if self._live is not None:
            self._live.console.print(text, markup=False, highlight=False)
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
