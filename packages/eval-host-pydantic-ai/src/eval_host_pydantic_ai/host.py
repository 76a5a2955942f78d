"""A team's pydantic-ai agents as the system under test, behind the Host port.

:class:`PydanticAiHost` imports the agents (:mod:`eval_host_pydantic_ai.app`), keeps their MCP
servers open on its loop (:mod:`eval_host_pydantic_ai.loop`) and asks pydantic-ai once, at
load, what each agent offers a model: its instructions (the text Expectations are grounded
in) and its Tool definitions (the platform Tools a Case may name, hashed into the corpusHash).
Each Trial is one ``agent.run`` with our binding as its model (:mod:`.model`) and our witness at
its Tool boundary (:mod:`.boundary`); :mod:`.evidence` reads the run back. L2 only; no
services.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_ai.agent import AbstractAgent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.usage import UsageLimits

from eval_core.hosts import (
    AgentTools,
    CaseBase,
    ContextRules,
    Evidence,
    HostOptionError,
    HostTrial,
    ModelSession,
    Tier,
    ToolDecl,
    number_option,
)
from eval_host_pydantic_ai.app import App, load_app
from eval_host_pydantic_ai.boundary import ToolBoundary, Witnessing, declared_toolset
from eval_host_pydantic_ai.evidence import conversation, ended, evidence_of, leaf
from eval_host_pydantic_ai.loop import HostLoop
from eval_host_pydantic_ai.model import SessionModel, declaration
from eval_host_pydantic_ai.plugin import HOST_NAME

if TYPE_CHECKING:
    from pydantic_ai.mcp import MCPToolset

REQUEST_LIMIT = 8  # the reference runtime's iteration bound
TIMEOUT_SECONDS = 300.0


@cache
def _code() -> str:
    import pydantic_ai

    import eval_host_pydantic_ai
    from eval_core.hosts import fingerprint, version

    ours = fingerprint("eval-host-pydantic-ai", eval_host_pydantic_ai).digest
    return f"{ours} pydantic-ai {version('pydantic-ai-slim') or pydantic_ai.__version__}"


class _Listed(Exception):  # noqa: N818 - a signal, not an error
    def __init__(self, info: AgentInfo) -> None:
        super().__init__("listed")
        self.info = info


async def _listing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise _Listed(info)


LIST_SECONDS = 30.0
"""The least time listing an agent's offer at load may take, whatever the Trials' ``timeout``
(a busy machine lists slower than a Trial's bound; the load deadline bounds it all)."""


class PydanticAiHost:
    """pydantic-ai agents behind the Host port: ``--host pydantic-ai``."""

    name = HOST_NAME
    tiers: frozenset[Tier] = frozenset({"l2"})

    def __init__(
        self,
        directory: Path,
        *,
        app: str | None = None,
        request_limit: str | None = None,
        tool_calls_limit: str | None = None,
        timeout: str | None = None,
    ) -> None:
        self.directory = directory  # the project is found upwards from it
        self.app: App = load_app(directory, app)
        settings = self.app.settings
        requests = number_option("request_limit", request_limit or settings.get("request_limit"), 8)
        calls = number_option(
            "tool_calls_limit", tool_calls_limit or settings.get("tool_calls_limit"), None
        )
        self.limits = UsageLimits(
            request_limit=int(requests or REQUEST_LIMIT),
            tool_calls_limit=None if calls is None else int(calls),
        )
        self.timeout = number_option("timeout", timeout or settings.get("timeout"), TIMEOUT_SECONDS)
        self.loop = HostLoop()
        try:
            self.loop.keep_open(_mcp_servers(self.app.agents.values()))
            self._offers = {
                name: self._list(name, agent) for name, agent in self.app.agents.items()
            }
        except BaseException as exc:
            self.loop.close()
            if isinstance(exc, HostOptionError):
                raise
            raise HostOptionError(
                f"app {self.app.spec!r}: could not open its agents: {type(leaf(exc)).__name__}: "
                f"{leaf(exc)}"
            ) from None
        self._platform: dict[str, ToolDecl] = {}
        for offer in self._offers.values():
            for tool in offer.function_tools:
                self._platform.setdefault(tool.name, declaration(tool))

    def _list(self, name: str, agent: AbstractAgent[Any, Any]) -> AgentInfo:
        """What pydantic-ai offers a model for this agent: asked of pydantic-ai itself, by a
        run whose model stops at its first request. An agent whose run never asks its model
        (a custom ``AbstractAgent``) offers nothing the Host can list: refused, naming it."""

        async def ask() -> AgentInfo:
            try:
                await agent.run("", model=FunctionModel(_listing, model_name="listing"))
            except BaseException as exc:
                listed = leaf(exc)
                if isinstance(listed, _Listed):
                    return listed.info
                raise
            raise HostOptionError(
                f"app {self.app.spec!r}: agent {name!r} answered without calling its model, so "
                "the Host cannot list the Tools it offers"
            )

        return self.loop.run(ask(), max(self.timeout or 0, LIST_SECONDS))

    @property
    def trial_deadline(self) -> float | None:
        """The ``timeout`` option: a Trial's forked child is killed a little after it."""
        return self.timeout

    def prepare_fork(self) -> None:
        """Before a Sweep's children are forked: the agents' MCP servers are exited here and
        entered again in each child, on its own loop (:meth:`HostLoop.release_servers`)."""
        self.loop.release_servers()

    @property
    def agents_from(self) -> str:
        """Where the agents come from, as a refusal names it: the team's ``app``."""
        return self.app.spec

    def noise(self) -> dict[str, int]:
        """The MCP SDK's, httpx's and anyio's records kept off stderr in this process
        (:mod:`eval_host_pydantic_ai.quiet`): each Trial's share is its ``dropped``."""
        from eval_host_pydantic_ai.quiet import dropped

        return dropped()

    def fingerprint(self) -> str:
        """Our code and pydantic-ai's version, the team's app named, and what pydantic-ai
        offers each agent (its Tools' names, its instructions): the checked-Corpus cache's key
        (the platform Tools' declarations are hashed besides)."""
        offers = sorted(
            (name, sorted(t.name for t in offer.function_tools), offer.instructions or "")
            for name, offer in self._offers.items()
        )
        digest = hashlib.sha256(repr(offers).encode()).hexdigest()[:16]
        return f"{_code()} {self.app.spec} {digest}"

    def agents(self) -> frozenset[str]:
        return frozenset(self.app.agents)

    def offered_tools(self, case: CaseBase) -> AgentTools | None:
        """The agent's Tools as pydantic-ai offers them (its function Tools and its MCP
        servers' Tools, listed at load), and the Tools the Case declares itself (offered for
        its Trials beside them: :func:`~eval_host_pydantic_ai.boundary.declared_toolset`)."""
        offer = self._offers.get(case.agent)
        if offer is None:
            return None  # an unknown agent, refused as such
        own = frozenset(t.name for t in offer.function_tools)
        owner = f"agent {case.agent!r} of {self.app.spec}"
        if case.tools:
            owner += " with the Case's tools"
        # as declared_toolset adds them: a Case's Tool named like any agent's is not added
        added = {t.name for t in case.tools if t.name not in self._platform}
        return AgentTools(own | added, owner)

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return self._platform

    def context_rules(self) -> ContextRules:
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """The agent's instructions as pydantic-ai assembled them for a model."""
        offer = self._offers.get(case.agent)
        return (offer.instructions,) if offer is not None and offer.instructions else ()

    def services(self, tier: Tier) -> Sequence[type]:
        return ()

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        return PydanticAiTrial(self, case, model)

    def close(self) -> None:
        """Exit the agents' MCP servers and stop the loop's thread."""
        self.loop.close()


def _mcp_servers(agents: Any) -> list[MCPToolset[Any]]:
    """The agents' MCP toolsets, each once. Their class is ``pydantic_ai.mcp``'s, so only an
    app that imported that module can have made one: for any other app it is never imported
    (with fastmcp, 0.6 s of CPU in every ``eval`` process)."""
    mcp = sys.modules.get("pydantic_ai.mcp")
    if mcp is None:
        return []
    kind: type[MCPToolset[Any]] = mcp.MCPToolset
    found: list[MCPToolset[Any]] = []

    def visit(toolset: AbstractToolset[Any]) -> None:
        if isinstance(toolset, kind) and toolset not in found:
            found.append(toolset)

    for agent in agents:
        for toolset in getattr(agent, "toolsets", ()):
            toolset.apply(visit)
    return found


class PydanticAiTrial:
    """One Trial: one ``agent.run`` of the Case's conversation, read back."""

    def __init__(self, host: PydanticAiHost, case: CaseBase, session: ModelSession) -> None:
        self.host = host
        self.case = case
        self.session = session
        self.boundary = ToolBoundary(case)

    def services(self) -> Sequence[object]:
        return ()

    def run(self) -> Evidence:
        host, case = self.host, self.case
        agent = host.app.agents[case.agent]
        model_id = getattr(self.session, "model_id", None) or "eval-binding"
        blocking = model_id != "scripted"
        model = SessionModel(self.session, str(model_id), blocking)
        prompt, history = conversation(case.input)
        extra = declared_toolset(case, frozenset(host.platform_tools()))

        async def run() -> Any:
            return await agent.run(
                prompt,
                message_history=history or None,
                model=model,
                capabilities=[Witnessing(boundary=self.boundary)],
                toolsets=[extra] if extra is not None else None,
                usage_limits=host.limits,
            )

        try:
            result = host.loop.run(run(), host.timeout)
        except BaseException as exc:
            return ended(case, self.boundary, model, leaf(exc))
        return evidence_of(case, self.boundary, model, result)

    def close(self) -> None:
        pass
