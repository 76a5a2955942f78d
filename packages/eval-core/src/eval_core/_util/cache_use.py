"""Which caches a command used, and how: what a Sweep's Scorecard names (``caches``).

A cache never changes a verdict, but a warm one explains a fast Sweep and a cold one a slow
one, and a reader comparing two Sweeps should not have to guess which answers were computed
afresh. So every cache says, as it answers, whether it was a ``hit`` or a ``miss`` (or
``partial``: some of what it was asked was kept, the checked Corpus's unchanged files), or
``off`` when caches are off for the command. Only this process's uses are recorded: a cache
consulted in an executor's workers alone is not named.
"""

from __future__ import annotations

import threading
from typing import Literal

Use = Literal["hit", "miss", "partial", "off"]

_USED: dict[str, Use] = {}
_LOCK = threading.Lock()


def note(name: str, use: Use) -> None:
    """Say that the cache ``name`` was just used: a hit and a miss of one cache in one command
    make it ``partial``."""
    with _LOCK:
        was = _USED.get(name)
        if was is None or was == use:
            _USED[name] = use
        elif "off" not in (was, use):
            _USED[name] = "partial"


def share(hits: int, asked: int, enabled: bool = True) -> Use:
    """What ``hits`` answers kept of ``asked`` make of a use (``off`` when not ``enabled``)."""
    if not enabled:
        return "off"
    return "hit" if hits == asked else "miss" if hits == 0 else "partial"


def used() -> dict[str, Use]:
    """Every cache used since :func:`forget`, by name, sorted."""
    with _LOCK:
        return dict(sorted(_USED.items()))


def forget() -> None:
    """Start a new record (each command in a process starts with none)."""
    with _LOCK:
        _USED.clear()
