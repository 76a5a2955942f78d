"""The concurrency window: how many calls to one endpoint may be in flight, adapted to it.

Several Trials may wait on one vendor at once (``eval sweep --jobs N``), so up to ``N`` calls.
A rate limit (429) halves the window to half the calls then in flight, and every call that
succeeds widens it by a fraction of a call, back up to its ceiling: the additive-increase,
multiplicative-decrease of a congestion window. A rate-limited vendor so gets fewer calls at
once instead of more retries.
"""

from __future__ import annotations

import threading


class Window:
    __slots__ = ("_cond", "_size", "ceiling", "in_flight")

    def __init__(self, ceiling: int = 256) -> None:
        self.ceiling = max(1, ceiling)
        self._size = float(self.ceiling)
        self.in_flight = 0
        self._cond = threading.Condition()

    @property
    def size(self) -> int:
        """Calls that may be in flight now (at least one)."""
        return max(1, int(self._size))

    def __enter__(self) -> Window:
        with self._cond:
            while self.in_flight >= self.size:
                self._cond.wait()
            self.in_flight += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self.in_flight -= 1
            self._cond.notify_all()

    def rate_limited(self) -> bool:
        """Halve the window; whether other calls were in flight (the Sweep's own crowding)."""
        with self._cond:
            crowded = self.in_flight > 1
            self._size = max(1.0, min(self._size, self.in_flight) / 2)
            return crowded

    def succeeded(self) -> None:
        with self._cond:
            self._size = min(float(self.ceiling), self._size + 1 / self._size)
            self._cond.notify_all()
