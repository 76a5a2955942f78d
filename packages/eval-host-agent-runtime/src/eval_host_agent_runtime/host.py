"""The reference runtime as the system under test: its Soul, its Tools, its two tiers.

:class:`AgentRuntimeHost` loads the Eval Soul with the runtime's own loader and opens each
Trial at the Case's tier: L2 in memory, L3 on a fresh copy of a migrated database. Its one
option, ``store`` (``--host-option store=URL``, else the ``EVAL_STORE`` environment variable),
says where L3 keeps its databases: ``sqlite`` (the embedded default, built on the first L3
Trial) or a ``postgresql://`` URL (built at once, so a store that cannot be used is refused
before the first Trial).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from agent_runtime.soul.default_agent import DEFAULT_AGENT_SLUG
from agent_runtime.soul.loader import Soul
from agent_runtime.turn.context import (
    CONTEXT_TYPES,
    RETIRED_CONTEXT_KEYS,
    SOUL_OWNED_CONTEXT_KEYS,
    TURN_CONTEXT_KEYS,
    assemble_system_prompt,
)
from eval_core.hosts import (
    AgentTools,
    CaseBase,
    ContextRules,
    HostOptionError,
    HostTrial,
    ModelSession,
    Tier,
    ToolDecl,
)
from eval_host_agent_runtime import l2
from eval_host_agent_runtime.ports import PLATFORM, tools_of
from eval_host_agent_runtime.soul_cache import cached_soul

if TYPE_CHECKING:  # the durable tier loads with the first L3 Case: an L2 Sweep never pays
    from eval_host_agent_runtime import tier as l3_tier

HOST_NAME = "agent-runtime"


@cache
def _code() -> str:
    import agent_runtime
    import eval_host_agent_runtime
    from eval_core.hosts import content_digest

    packages = (
        ("agent-runtime", agent_runtime),
        ("eval-host-agent-runtime", eval_host_agent_runtime),
    )
    return " ".join(content_digest(name, module) for name, module in packages)


STORE_VARIABLE = "EVAL_STORE"


class AgentRuntimeHost:
    """The reference runtime behind the Host port."""

    name = HOST_NAME
    agents_from = "the Eval Soul"
    tiers: frozenset[Tier] = frozenset({"l2", "l3"})
    parks_calls = True  # a provider that waits parks the call, in memory and durably

    def __init__(self, soul_dir: Path, *, store: str | None = None) -> None:
        self.soul_dir = soul_dir
        self.store = store if store is not None else os.environ.get(STORE_VARIABLE) or None
        self.soul: Soul = cached_soul(soul_dir, _code)  # load_soul's, kept between commands
        self._agents = frozenset(self.soul.agents) | {DEFAULT_AGENT_SLUG}
        self._rules = ContextRules(
            allowed=TURN_CONTEXT_KEYS,
            soul_owned=SOUL_OWNED_CONTEXT_KEYS,
            retired=RETIRED_CONTEXT_KEYS,
            types=CONTEXT_TYPES,
        )
        self._durable: l3_tier.DurableTier | None = None
        self._lock = threading.Lock()
        self._prompts: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}
        if self.store not in (None, "sqlite"):
            self._durable = self._tier()

    def _tier(self) -> l3_tier.DurableTier:
        from agent_runtime.store.storage import StoreError
        from eval_host_agent_runtime import tier as l3_tier

        try:
            return l3_tier.DurableTier(self.soul_dir, self.store)
        except StoreError as refused:
            raise HostOptionError(f"store {refused}") from None

    def noise(self) -> dict[str, int]:
        """The MCP SDK's, httpx's and anyio's records and the runtime loop's orphaned task
        errors kept off stderr in this process (:mod:`agent_runtime.mcp.sdk_noise`): none
        while no MCP session has imported it (asked before and after every Trial: an L2 Sweep
        never imports it, nor ``logging`` with it)."""
        counted = sys.modules.get("agent_runtime.mcp.sdk_noise")
        return {} if counted is None else counted.dropped()

    def fingerprint(self) -> str:
        """What the load-time answers (agents, platform Tools, given text) depend on besides
        the Soul: the runtime's code and this package's (the checked-Corpus cache's key)."""
        return _code()

    def agents(self) -> frozenset[str]:
        return self._agents

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return PLATFORM

    def offered_tools(self, case: CaseBase) -> AgentTools:
        """What a Turn of this Case offers the model: exactly the Case's own Tools and the
        platform Tools it names (:func:`~eval_host_agent_runtime.ports.tools_of`); a Soul agent
        adds none (its capabilities only deny)."""
        names = frozenset(t.name for t in tools_of(case))
        return AgentTools(names, f"agent {case.agent!r} in this Case (its tools and platformTools)")

    def context_rules(self) -> ContextRules:
        return self._rules

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """What the Soul gives the model for this Case: the real assembled system prompt."""
        if case.agent not in self._agents:
            return ()
        agent = self.soul.agent(case.agent)
        tools = tools_of(case)
        key = (case.agent, tuple((t.name, t.description) for t in tools))
        prompt = self._prompts.get(key)
        if prompt is None:
            prompt = self._prompts[key] = assemble_system_prompt(self.soul, agent, {}, tools)
        return (prompt,)

    def services(self, tier: Tier) -> Sequence[type]:
        if tier == "l3":
            from eval_host_agent_runtime.l3_services import SERVICES

            return SERVICES
        return l2.SERVICES

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        if case.tier == "l3":
            with self._lock:  # Trials may open at once: one durable tier per Host
                if self._durable is None:
                    self._durable = self._tier()
            from eval_host_agent_runtime import l3

            return l3.L3Trial(self._durable, case, model)
        return l2.L2Trial(self.soul, case, model)

    def close(self) -> None:
        """Release the L3 tier (its template database and Soul repository), if it was used."""
        if self._durable is not None:
            self._durable.close()
            self._durable = None
