"""Third-party noise kept off stderr: what the MCP SDK (under pydantic-ai's and fastmcp's MCP
client), httpx and anyio log about a server that misbehaves is counted, never printed.

The SDK logs a malformed event, an answer that is not UTF-8 or a notification it cannot
validate with ``logger.exception`` (a traceback on stderr, through logging's last resort) and,
in ``mcp.shared.session``, on the *root* logger (``logging.warning``), which installs a stderr
handler on a process that configured none: a Sweep's stderr filled with tracebacks even where
the Trial's verdict was right. The failure itself reaches the agent as its Tool's error (and
the Trial's line when the run fails); the records are counted by logger (:func:`dropped`), and
so is what the Host's event loop would print (:func:`loop_exception`).
Installed when the Host is made (:mod:`eval_host_pydantic_ai.plugin`), never by ``eval`` alone.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections import Counter
from typing import Any

LOGGERS = ("mcp", "client", "fastmcp", "httpx", "httpcore", "anyio")
"""The SDK's loggers (``client`` is the name ``mcp.client.session`` logs under), fastmcp's,
its HTTP stack's, and anyio's."""

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
    # the SDK is this Host's dependency (pydantic-ai-slim[mcp])
    session = importlib.import_module("mcp.shared.session")
    if getattr(session, "logging", None) is logging:
        # it calls only log methods on ``logging``: the same calls, on the SDK's own logger
        session.logging = logging.getLogger("mcp.shared.session")  # type: ignore[attr-defined]


def loop_exception(_loop: Any, context: dict[str, Any]) -> None:
    """The Host loop's exception handler: what asyncio would print (a task's exception never
    retrieved, an async generator of pydantic-ai's that failed to close when its run was
    cancelled), counted under ``asyncio``."""
    with _lock:
        _counts["asyncio"] += 1


def dropped() -> dict[str, int]:
    """How many records each logger had dropped so far."""
    with _lock:
        return dict(_counts)
