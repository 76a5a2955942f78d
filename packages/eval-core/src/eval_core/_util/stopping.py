"""Stopping a Sweep: SIGTERM (how CI cancels a job) is handled exactly like Ctrl-C.

While a Sweep is :meth:`Stopping.running`, the first SIGINT or SIGTERM raises
``KeyboardInterrupt`` where the Sweep is; the runner turns that into a partial Scorecard marked
aborted, and the trial log stays resumable. Every later signal, and any signal while the Sweep
cleans up (the Host's ``close()`` removes the L3 tier's temporary directory) and prints its
Scorecard, is noted on stderr and otherwise ignored: a second Ctrl-C can no longer cut the
cleanup short. A process that must die at once still can: SIGKILL.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None)


class Stopping:
    """The signal handling of one command; a no-op outside the main thread."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.received: int | None = None
        self._armed = False
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received is not None else ""

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        first = self.received is None
        if first:
            self.received = signum
        if first and self._armed:
            self._armed = False
            raise KeyboardInterrupt
        try:
            self.err.write(
                f"eval: {signal.Signals(signum).name} received: stopping; cleaning up and "
                "printing the partial Scorecard first\n"
            )
            self.err.flush()
        except (OSError, ValueError):
            pass

    def __enter__(self) -> Stopping:
        if threading.current_thread() is threading.main_thread():
            for signum in SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    @contextmanager
    def running(self) -> Iterator[None]:
        """The stretch a signal may interrupt (loading, the Trials); cleanup happens after."""
        self._armed = self.received is None
        try:
            yield
        finally:
            self._armed = False


@contextmanager
def held() -> Iterator[None]:
    """A stretch no signal may cut in two, such as a directory made and recorded: a SIGINT or
    SIGTERM arriving in it is delivered as it ends. (The standard library's first ``mkdtemp``
    probes the temporary directory with a file of its own, which an interrupt there leaves.)"""
    caught: list[int] = []
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            handler = signal.getsignal(signum)
            if handler is not None:  # one installed outside Python cannot be put back
                previous[signum] = signal.signal(signum, lambda s, _: caught.append(s))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in caught:
            signal.raise_signal(signum)
