"""Third-party log noise a Host keeps off stderr, counted by logger, never printed.

A framework Host runs a team's agent through libraries that log what a misbehaving server or a
cancelled run does to them (the MCP SDK, httpx, anyio), sometimes as a traceback on the root
logger, and through an event loop that prints a task's exception never retrieved. The failure
itself is the Trial's one line; the records are counted (:meth:`Noise.dropped`, which the Host
reports as its ``noise()``). One :class:`Noise` per Host, installed when the Host is made.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import Counter
from typing import Any


class Noise:
    """Counts the records of ``loggers``, and what an event loop would print (under
    ``asyncio``), and drops them all."""

    def __init__(self, loggers: tuple[str, ...]) -> None:
        self.loggers = loggers
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._installed = False

    def quiet(self, *on_root: str) -> None:
        """Install once a process (idempotent). Each already imported module named in
        ``on_root`` that logs through the root ``logging`` module (which puts a stderr handler
        on a process that configured none) logs through its own logger instead: it calls only
        log methods there, the same calls."""
        with self._lock:
            if self._installed:
                return
            self._installed = True
        handler = _Count(self)
        for name in self.loggers:
            logger = logging.getLogger(name)
            logger.addHandler(handler)
            logger.propagate = False
        for name in on_root:
            module = sys.modules.get(name)
            if module is not None and getattr(module, "logging", None) is logging:
                module.logging = logging.getLogger(name)  # type: ignore[attr-defined]

    def count(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def loop_exception(self, _loop: Any, _context: dict[str, Any]) -> None:
        """An event loop's exception handler: what asyncio would print, counted."""
        self.count("asyncio")

    def dropped(self) -> dict[str, int]:
        """How many records each logger had dropped so far."""
        with self._lock:
            return dict(self._counts)


class _Count(logging.Handler):
    def __init__(self, noise: Noise) -> None:
        super().__init__()
        self.noise = noise

    def emit(self, record: logging.LogRecord) -> None:
        self.noise.count(record.name)
