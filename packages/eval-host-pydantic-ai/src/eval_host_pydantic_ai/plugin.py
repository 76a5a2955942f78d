"""Entry point: registers a team's pydantic-ai agents as the Host ``pydantic-ai``.

Light on purpose: every ``eval`` invocation loads it, so pydantic-ai is imported only when the
Host is chosen (``--host pydantic-ai``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from eval_core.hosts import Host, HostFactory, hookimpl, owns_agents

HOST_NAME = "pydantic-ai"


@owns_agents  # the agents are the team's code: a Corpus for it needs no Eval Soul
def pydantic_ai_host(
    directory: Path,
    *,
    app: str | None = None,
    request_limit: str | None = None,
    tool_calls_limit: str | None = None,
    timeout: str | None = None,
) -> Host:
    """``--host pydantic-ai``; options ``app``, ``request_limit``, ``tool_calls_limit`` and
    ``timeout`` (seconds per Trial), each also read from ``[tool.eval]``. ``directory``: the
    Corpus's, where the team's project is found upwards."""
    from eval_host_pydantic_ai.host import PydanticAiHost
    from eval_host_pydantic_ai.quiet import quiet

    quiet()  # the MCP SDK's own logging of a misbehaving server: counted, not on stderr
    return PydanticAiHost(
        directory,
        app=app,
        request_limit=request_limit,
        tool_calls_limit=tool_calls_limit,
        timeout=timeout,
    )


pydantic_ai_host.framework = ("eval_host_pydantic_ai.host",)  # type: ignore[attr-defined]
"""Imported before the load deadline starts: it bounds the team's code, not pydantic-ai's import."""


@hookimpl
def eval_hosts() -> Mapping[str, HostFactory]:
    return {HOST_NAME: pydantic_ai_host}
