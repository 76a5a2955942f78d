"""Third-party noise kept off stderr: what a Trial's event loop would print (a task's exception
never retrieved, an async generator of LangGraph's that failed to close when the team's Tool
raised through it) and what the MCP SDK under langchain-mcp-adapters, httpx and anyio log about
a server that misbehaves is counted, never printed.

Each Trial runs the graph on an event loop of its own (:mod:`eval_host_langgraph.trial`); its
exception handler is :func:`loop_exception`. The failure itself is the Trial's one error line;
the records are counted by logger (:func:`dropped`), which the Host reports as its ``noise()``
(each Trial's share is its ``dropped``). Installed when the Host is made, never by ``eval``
alone.
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
        session.logging = logging.getLogger("mcp.shared.session")  # type: ignore[attr-defined]


def loop_exception(_loop: Any, context: dict[str, Any]) -> None:
    """A Trial's loop's exception handler: what asyncio would print, counted."""
    with _lock:
        _counts["asyncio"] += 1


def dropped() -> dict[str, int]:
    """How many records each logger had dropped so far."""
    with _lock:
        return dict(_counts)
