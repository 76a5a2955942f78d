"""Progress on stderr, never stdout: the Scorecard on stdout is an artifact programs parse.

A terminal gets a live rich status line; anything else (CI logs, pipes) gets one plain line per
Trial so the log stays greppable.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

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
        line = (
            f"[{index}/{total}] {result.case_id}#{result.trial} "
            f"{_LABEL[result.outcome]} {result.duration_ms / 1000:.2f}s"
        )
        if self._live is not None:
            self._live.update(line)
            if result.outcome != "passed":
                self._live.console.print(line)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def note(self, text: str) -> None:
        if self._live is not None:
            self._live.console.print(text)
        elif not self.quiet:
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
