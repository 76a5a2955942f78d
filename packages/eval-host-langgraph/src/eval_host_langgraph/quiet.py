"""Third-party noise kept off stderr: what a Trial's event loop would print (a task's exception
never retrieved, an async generator of LangGraph's that failed to close when the team's Tool
raised through it) and what the MCP SDK under langchain-mcp-adapters, httpx and anyio log about
a server that misbehaves is counted, never printed (:class:`eval_core.hosts.Noise`).

Each Trial runs the graph on an event loop of its own (:mod:`eval_host_langgraph.trial`); its
exception handler is :func:`loop_exception`. The Host reports :func:`dropped` as its
``noise()`` (each Trial's share is its ``dropped``). Installed when the Host is made, never by
``eval`` alone.
"""

from __future__ import annotations

from eval_core.hosts import Noise

LOGGERS = ("mcp", "client", "httpx", "httpcore", "anyio")
"""The SDK's loggers (``client`` is the name ``mcp.client.session`` logs under), its HTTP
stack's, and anyio's."""

NOISE = Noise(LOGGERS)
loop_exception = NOISE.loop_exception
dropped = NOISE.dropped


def quiet() -> None:
    """Count and drop the records of :data:`LOGGERS` (once a process; idempotent); the SDK's
    session module, when the team's graph imported it, logs on its own logger."""
    NOISE.quiet("mcp.shared.session")
