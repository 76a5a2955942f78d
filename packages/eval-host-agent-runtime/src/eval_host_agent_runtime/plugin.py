"""Entry point: registers the reference runtime as the Host ``agent-runtime``, and the load rule
of the one context key whose value the assembler reads as a choice (``mode``)."""

from __future__ import annotations

from collections.abc import Mapping

from agent_runtime.turn.platform_prompt import CONTEXT_MODES
from eval_core.hosts import CaseBase, HostFactory, LoadContext, hookimpl
from eval_host_agent_runtime.host import HOST_NAME, AgentRuntimeHost


@hookimpl
def eval_hosts() -> Mapping[str, HostFactory]:
    return {HOST_NAME: AgentRuntimeHost}


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """``context.mode`` names a mode this runtime's assembler has, refused at load otherwise
    (rather than erroring every Trial at its first prompt)."""
    if not isinstance(context.host, AgentRuntimeHost) or not case.context:
        return []
    mode = case.context.get("mode")
    if "mode" not in case.context or (isinstance(mode, str) and mode in CONTEXT_MODES):
        return []
    return [("$.context.mode", f"{mode!r} is not a mode (known: {', '.join(CONTEXT_MODES)})")]
