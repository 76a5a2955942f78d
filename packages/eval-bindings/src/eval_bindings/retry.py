"""Retries belong to the harness: transient vendor faults get another attempt, on the record.

Transient: a rate limit, a 5xx, a timeout, a refused connection (the server restarting);
see :data:`eval_bindings.wire.transport.TRANSIENT`.

Three attempts in all, backing off ``base_delay × attempt`` seconds, or the vendor's own
Retry-After when it sends one (capped, so a hostile header cannot park a Sweep). The caller
bills every attempt; ``on_retry`` is told of each one retried, so it can be reported. A rate
limit met while other calls were in flight (``fault.narrowed``: the concurrency window shrank,
see :mod:`eval_bindings.window`) is the Sweep's own crowding, not the vendor failing this call:
it is retried without spending an attempt, a few times at most. A Trial bounded in time
(``trial_timeout_s``) stops retrying when the wait would outlast its bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from eval_bindings.wire.transport import VendorError

T = TypeVar("T")
ATTEMPTS = 3
CROWDED = 8
"""Rate limits from crowding retried for free, per call, before they count as attempts."""


def with_retry(
    attempt: Callable[[], T],
    *,
    attempts: int = ATTEMPTS,
    base_delay: float = 2.0,
    max_wait: float = 30.0,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[VendorError], None] | None = None,
    deadline: float | None = None,
) -> T:
    """Run ``attempt`` until it succeeds, fails for good, or the attempts are spent; never
    sleeps past ``deadline`` (``time.monotonic()``): a wait that would is not waited."""
    number, crowded = 1, 0
    while True:
        try:
            return attempt()
        except VendorError as fault:
            free = fault.narrowed and crowded < CROWDED
            if not fault.transient or (number == attempts and not free):
                raise
            wait = (
                min(fault.retry_after, max_wait)
                if fault.retry_after is not None
                else base_delay * number
            )
            if deadline is not None and time.monotonic() + wait >= deadline:
                raise fault
            if on_retry is not None:
                on_retry(fault)
            sleep(wait)
            if free:
                crowded += 1
            else:
                number += 1
