"""Progress on stderr, never stdout: the Scorecard on stdout is an artifact programs parse.

Trials are counted as they finish, in the order they finish (with ``--jobs`` that is not the
planned order): ``[17/144]`` is the seventeenth Trial done of 144 planned, Trials a resumed
Sweep had already done included, with the rate of this run and the time it leaves to go.

A terminal gets a live ``rich.progress`` bar (done/total, rate, time remaining), with each
Trial that did not pass and every note printed above it; rich is imported only then. Anything
else (CI logs, pipes) gets one plain line per Trial, so the log stays greppable::

    [17/144] refund-is-blocklisted#1 PASS 0.01s  12.5 Trials/s  ETA 10s

Every line passes through :func:`~eval_core._util.safe_text.clean` and is printed without rich
markup, so a Case id can neither carry an escape sequence to the terminal nor be read as markup.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from eval_core._running.trial import TrialResult
from eval_core._util.safe_text import clean

_LABEL = {"passed": "PASS", "failed": "FAIL", "errored": "ERR", "unexercised": "UNEX"}


def duration(seconds: float) -> str:
    """``7s``, ``3m05s``, ``2h04m``: a time left, to the second."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def rate(per_second: float) -> str:
    return f"{per_second:.1f} Trials/s" if per_second >= 0.1 else f"{per_second:.3f} Trials/s"


class Progress:
    """One Sweep's progress (each Matrix leg :meth:`begin`\\ s its own count)."""

    def __init__(
        self,
        stream: TextIO | None = None,
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream or sys.stderr
        self.quiet = quiet
        self._clock = clock
        self._total = 0
        self._done = 0  # Trials finished, the resumed ones included
        self._ran = 0  # Trials finished by this run (what the rate is of)
        self._started = clock()
        self._bar: Any = None
        self._task: Any = None
        if not quiet and self.stream.isatty():
            self._bar = _bar(self.stream)
            self._bar.start()

    def begin(self, total: int, done: int = 0) -> None:
        """A leg's Trials start: ``total`` planned, ``done`` of them already (``--resume``)."""
        self._total, self._done, self._ran = total, done, 0
        self._started = self._clock()
        if self._bar is not None:
            self._task = self._bar.add_task("", total=total, completed=done)

    def trial(self, result: TrialResult) -> None:
        """One more Trial finished (in the order they finish)."""
        self._done += 1
        self._ran += 1
        if self.quiet:
            return
        head = clean(
            f"{result.case_id}#{result.trial} {_LABEL[result.outcome]} "
            f"{result.duration_ms / 1000:.2f}s"
        )
        line = f"[{self._done}/{self._total}] {head}"
        if self._bar is not None:
            if self._task is not None:
                self._bar.update(self._task, advance=1, description=head)
            if result.outcome != "passed":
                self._bar.console.print(line, markup=False, highlight=False)
            return
        elapsed = self._clock() - self._started
        if elapsed > 0:
            per_second = self._ran / elapsed
            line += f"  {rate(per_second)}  ETA {duration((self._total - self._done) / per_second)}"
        self.stream.write(line + "\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        self._say(text, quiet=self.quiet)

    def warn(self, text: str) -> None:
        """Like :meth:`note`, but shown even with ``--quiet``: something was changed or lost."""
        self._say(text, quiet=False)

    def _say(self, text: str, quiet: bool) -> None:
        text = clean(text)
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        elif not quiet:
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


def _bar(stream: TextIO) -> Any:
    """The terminal's live bar: the last Trial, the bar, done/total, rate, time remaining."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            speed = task.finished_speed or task.speed
            return Text(rate(speed) if speed else "- Trials/s")

    return Bar(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(file=stream),
        transient=False,
    )
