"""Third-party noise kept off stderr: what the MCP SDK, httpx and anyio log about a server that
misbehaves is counted here, never printed as a traceback.

The SDK logs a malformed event, an answer that is not UTF-8 or a notification it cannot
validate with ``logger.exception`` (a traceback on stderr, through logging's last resort) and,
in ``mcp.shared.session``, on the *root* logger (``logging.warning``), which installs a stderr
handler on a process that configured none. The session already knows each of these failures
and says it in the Trial's error line (:mod:`agent_runtime.mcp.session`), so the records are
counted by logger (:func:`dropped`) and dropped. The runtime's own event loop counts what
asyncio would print the same way ("Task exception was never retrieved", an async generator
that failed to close: :func:`loop_exception`).
"""

from __future__ import annotations

import logging
import sys
import threading
from collections import Counter
from typing import Any

LOGGERS = ("mcp", "client", "httpx", "httpcore", "anyio")
"""The SDK's loggers (``client`` is the name ``mcp.client.session`` logs under), its HTTP
stack's, and anyio's."""

_counts: Counter[str] = Counter()
_lock = threading.Lock()
_installed: list[bool] = []  # one entry once installed


class _Count(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        with _lock:
            _counts[record.name] += 1


def quiet() -> None:
    """Count and drop the records of :data:`LOGGERS` (once a process; idempotent)."""
    with _lock:
        if _installed:
            return
        _installed.append(True)
    handler = _Count()
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False
    session = sys.modules.get("mcp.shared.session")
    if session is not None and getattr(session, "logging", None) is logging:
        # it calls only log methods on ``logging``: the same calls, on the SDK's own logger
        session.logging = logging.getLogger("mcp.shared.session")  # type: ignore[attr-defined]


def loop_exception(_loop: Any, context: dict[str, Any]) -> None:
    """The runtime's loop's exception handler: what asyncio would print, counted."""
    with _lock:
        _counts["asyncio"] += 1


def dropped() -> dict[str, int]:
    """How many records each logger had dropped so far."""
    with _lock:
        return dict(_counts)
