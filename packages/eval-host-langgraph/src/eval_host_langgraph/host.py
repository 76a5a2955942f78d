"""A team's LangGraph agents as the system under test: ``--host langgraph``, tier L2.

:class:`LangGraphHost` imports the team's agents (:mod:`eval_host_langgraph.app`), answers the
loader from the graphs themselves (each agent's Tools, read from its ToolNodes; the system
prompt its own code assembles for a Case, captured from the first request it makes) and opens
each Trial on a graph freshly built around the Trial's model session. Options (each also read
from ``[tool.eval]``): ``app=package.module:AGENTS``, ``recursion_limit=N`` (else the graph's
own) and ``timeout=SECONDS`` (a Trial's bound, 300 by default).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from eval_core.hosts import (
    AgentTools,
    CaseBase,
    ContextRules,
    HostOptionError,
    HostTrial,
    ModelCallRequest,
    ModelSession,
    Tier,
    ToolDecl,
    number_option,
)
from eval_host_langgraph.app import App, build, find_app
from eval_host_langgraph.chat_model import SessionChatModel, decl
from eval_host_langgraph.mcp import McpConnections
from eval_host_langgraph.plugin import HOST_NAME
from eval_host_langgraph.tools import tools_of
from eval_host_langgraph.trial import SERVICES, LangGraphTrial, messages_of

TIERS: frozenset[Tier] = frozenset({"l2"})
MAX_RECURSION = 10_000
TIMEOUT_SECONDS = 300.0
MAX_TIMEOUT = 86_400.0


@cache
def _code() -> str:
    import langchain_core

    import eval_host_langgraph
    from eval_core.hosts import fingerprint, version

    ours = fingerprint("eval-host-langgraph", eval_host_langgraph).digest
    return f"{ours} langgraph {version('langgraph')} langchain-core {langchain_core.__version__}"


class _Probed(Exception):  # noqa: N818 - the probe's own stop signal
    """Raised by the load-time probe model at the graph's first request."""

    def __init__(self, request: ModelCallRequest) -> None:
        super().__init__("probed")
        self.request = request


def _stop(request: ModelCallRequest) -> None:
    raise _Probed(request)


class LangGraphHost:
    """The team's LangGraph agents behind the Host port."""

    name = HOST_NAME
    tiers = TIERS

    def __init__(
        self,
        directory: Path,
        *,
        app: str | None = None,
        recursion_limit: str | None = None,
        timeout: str | None = None,
    ) -> None:
        self.directory = directory  # the project is found upwards from it
        self.app: App = find_app(directory, app)
        settings = self.app.settings
        self.recursion_limit = _limit(recursion_limit or settings.get("recursion_limit"))
        self.timeout = number_option(
            "timeout", timeout or settings.get("timeout"), TIMEOUT_SECONDS, most=MAX_TIMEOUT
        )
        self._tools: dict[str, dict[str, ToolDecl]] = {}
        self._prompts: dict[tuple[str, str], str | None] = {}
        for agent in self.app.builders:
            self._tools[agent] = self._agent_tools(agent)
        platform: dict[str, ToolDecl] = {}
        for declared in self._tools.values():
            for name, tool in declared.items():
                platform.setdefault(name, tool)
        self._platform = MappingProxyType(platform)

    def _agent_tools(self, agent: str) -> dict[str, ToolDecl]:
        """The agent's own Tools (its ToolNodes', without MCP servers): the platform Tools."""
        graph = asyncio.run(self._build(agent))
        return {tool.name: decl(tool) for tool in tools_of(graph)}

    async def _build(self, agent: str) -> Any:
        model = SessionChatModel(session=None, on_request=_stop)
        try:
            return await build(self.app.builders[agent], model, {})
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a sys.exit of the builder's is one line, not eval's end
            raise HostOptionError(
                f"app {self.app.spec!r}: the builder of agent {agent!r} raised "
                f"{type(exc).__name__}: {exc}"
            ) from None

    @property
    def trial_deadline(self) -> float:
        """The ``timeout`` option: a Trial's forked child is killed a little after it."""
        return self.timeout

    def noise(self) -> dict[str, int]:
        """What the Trials' event loops and the MCP SDK would have printed, counted in this
        process (:mod:`eval_host_langgraph.quiet`): each Trial's share is its ``dropped``."""
        from eval_host_langgraph.quiet import dropped

        return dropped()

    def fingerprint(self) -> str:
        """What the load-time answers depend on besides the Soul: this package, the framework
        and the team's app module (its source)."""
        from eval_core.hosts import fingerprint

        module = self.app.module
        package = module.__name__.split(".")[0]
        team = fingerprint(package, __import__(package)).digest
        return f"{_code()} {self.app.spec} {team}"

    @property
    def agents_from(self) -> str:
        """Where the agents come from, as a refusal names it: the team's ``app``."""
        return self.app.spec

    def agents(self) -> frozenset[str]:
        return frozenset(self.app.builders)

    def offered_tools(self, case: CaseBase) -> AgentTools | None:
        """The Tools the agent's graph holds (its ToolNodes'). A Case may add none. When a
        fixture of the Case serves it MCP servers (through :class:`McpConnections`), the graph
        also loads their Tools at run, which the Host cannot list at load: a name outside the
        graph's own is then a load note (the core decides which Case that is)."""
        if case.agent not in self._tools:
            return None  # an unknown agent, refused as such
        more = "the Tools the agent's MCP client loads at run from the MCP servers a fixture serves"
        owner = f"agent {case.agent!r} of {self.app.spec}"
        return AgentTools(frozenset(self._tools[case.agent]), owner, more, McpConnections)

    def agent_tools(self, agent: str) -> Mapping[str, ToolDecl]:
        """The Tools the agent's own graph holds (its MCP servers' Tools come at run)."""
        return self._tools.get(agent, {})

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return self._platform

    def context_rules(self) -> ContextRules:
        """The graph takes messages only: a Case may set no ``context`` key."""
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """The system prompt the team's graph assembles for this Case's input, captured from
        its first model request (the graph is stopped there), and its Tools' descriptions."""
        if case.agent not in self.app.builders:
            return ()
        key = (case.agent, repr([(m.role, m.content) for m in case.input]))
        if key not in self._prompts:
            self._prompts[key] = asyncio.run(self._probe(case))
        prompt = self._prompts[key]
        described = [t.description or "" for t in self._tools[case.agent].values()]
        return tuple(text for text in (prompt, *described) if text)

    async def _probe(self, case: CaseBase) -> str | None:
        graph = await self._build(case.agent)
        try:
            await graph.ainvoke({"messages": messages_of(case)})
        except _Probed as probed:
            return probed.request.system
        except KeyboardInterrupt:
            raise
        except BaseException:  # the team's graph failing (or calling sys.exit) gives no prompt
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # Ctrl-C: asyncio cancels this task
                raise  # and makes it a KeyboardInterrupt, the user's, not the graph's
            return None
        return None

    def services(self, tier: Tier) -> Sequence[type]:
        return SERVICES if tier in TIERS else ()

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        builder = self.app.builders[case.agent]
        return LangGraphTrial(builder, case, model, self.recursion_limit, self.timeout)

    def close(self) -> None:
        """Nothing outlives a Trial: each ran its graph on an event loop of its own, closed
        with it, and each MCP session the agent opened was closed by its client."""
        self._prompts.clear()


def _limit(value: object) -> int | None:
    if value is None:
        return None
    try:
        limit = int(str(value))
    except ValueError:
        limit = 0
    if not 1 <= limit <= MAX_RECURSION:
        raise HostOptionError(
            f"recursion_limit {value!r}: expected a whole number from 1 to {MAX_RECURSION}"
        )
    return limit
