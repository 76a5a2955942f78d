"""Entry point: registers a team's LangGraph agents as the Host ``langgraph``, and what such a
Case may not ask of it (refused at load).

Kept light: LangGraph and LangChain load (about a second and a half) only when the Host is
chosen, never for a Sweep of another Host.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from eval_core.hosts import CaseBase, HostFactory, LoadContext, hookimpl, owns_agents

if TYPE_CHECKING:
    from eval_host_langgraph.host import LangGraphHost

HOST_NAME = "langgraph"


@owns_agents  # the agents are the team's code: a Corpus for it needs no Eval Soul
def langgraph_host(
    directory: Path,
    *,
    app: str | None = None,
    recursion_limit: str | None = None,
    timeout: str | None = None,
) -> LangGraphHost:
    """``--host langgraph``: options ``app=package.module:AGENTS``, ``recursion_limit=N``,
    ``timeout=SECONDS`` (each also read from ``[tool.eval]``). ``directory``: the Corpus's,
    where the team's project is found upwards."""
    from eval_host_langgraph.host import LangGraphHost
    from eval_host_langgraph.quiet import quiet

    quiet()  # the MCP SDK's own logging of a misbehaving server: counted, not on stderr
    return LangGraphHost(directory, app=app, recursion_limit=recursion_limit, timeout=timeout)


langgraph_host.framework = ("eval_host_langgraph.host",)  # type: ignore[attr-defined]
"""Imported before the load deadline starts: it bounds the team's code, not LangGraph's import."""


@hookimpl
def eval_hosts() -> Mapping[str, HostFactory]:
    return {HOST_NAME: langgraph_host}


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    if getattr(context.host, "name", None) != HOST_NAME:
        return []
    from eval_host_langgraph import checks

    return list(checks.problems(case, context))
