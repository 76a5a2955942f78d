"""Third-party noise kept off stderr: what the MCP SDK (under pydantic-ai's and fastmcp's MCP
client), httpx and anyio log about a server that misbehaves is counted, never printed
(:class:`eval_core.hosts.Noise`).

The SDK logs a malformed event, an answer that is not UTF-8 or a notification it cannot
validate with ``logger.exception`` (a traceback on stderr, through logging's last resort) and,
in ``mcp.shared.session``, on the *root* logger (``logging.warning``), which installs a stderr
handler on a process that configured none: a Sweep's stderr filled with tracebacks even where
the Trial's verdict was right. The failure itself reaches the agent as its Tool's error (and
the Trial's line when the run fails); the records are counted by logger (:func:`dropped`), and
so is what the Host's event loop would print (:func:`loop_exception`: a task's exception never
retrieved, an async generator of pydantic-ai's that failed to close when its run was cancelled).
Installed when the Host is made (:mod:`eval_host_pydantic_ai.plugin`), never by ``eval`` alone.
"""

from __future__ import annotations

import importlib

from eval_core.hosts import Noise

LOGGERS = ("mcp", "client", "fastmcp", "httpx", "httpcore", "anyio")
"""The SDK's loggers (``client`` is the name ``mcp.client.session`` logs under), fastmcp's,
its HTTP stack's, and anyio's."""

NOISE = Noise(LOGGERS)
loop_exception = NOISE.loop_exception
dropped = NOISE.dropped


def quiet() -> None:
    """Count and drop the records of :data:`LOGGERS` (once a process; idempotent)."""
    importlib.import_module("mcp.shared.session")  # this Host's dependency (pydantic-ai-slim[mcp])
    NOISE.quiet("mcp.shared.session")
