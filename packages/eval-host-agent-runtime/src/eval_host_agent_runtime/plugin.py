"""Entry point: registers the reference runtime as the Host ``agent-runtime``."""

from __future__ import annotations

from collections.abc import Mapping

from eval_core.hosts import HostFactory, hookimpl
from eval_host_agent_runtime.host import HOST_NAME, AgentRuntimeHost


@hookimpl
def eval_hosts() -> Mapping[str, HostFactory]:
    return {HOST_NAME: AgentRuntimeHost}
