"""The MCP transport is real: killing the provider mid-Turn ends the Trial with a recorded Tool
failure (or an error) within a bounded time, never a hang; the next Trial gets a new provider."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from agent_runtime.eval_host import AgentRuntimeHost
from eval_core.corpus import Corpus
from eval_core.host import Host
from eval_core.scripted import ScriptedBinding

CASE = "l3-mcp-consented-shared-account-can-call"
BOUND = 30.0


class _KillingSession:
    """The scripted session, except that it kills the provider process as the model answers
    with the MCP call: the provider dies mid-Turn, between the model and the dispatch."""

    def __init__(self, inner: Any, host: AgentRuntimeHost) -> None:
        self.inner = inner
        self.host = host
        self.killed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def complete(self, request: Any) -> Any:
        reply = self.inner.complete(request)
        if reply.tool_calls and not self.killed:
            durable = self.host._durable  # the test reaches the real provider
            assert durable is not None and durable.mcp is not None
            pid = durable.mcp.read_json("eval://process")["pid"]
            os.kill(pid, signal.SIGKILL)
            self.killed = True
        return reply


def test_killing_the_provider_mid_turn_records_a_tool_failure_without_hanging(
    corpus: Corpus, real_host: Host
) -> None:
    assert isinstance(real_host, AgentRuntimeHost)
    [case] = [c for c in corpus.cases if c.id == CASE]
    binding = ScriptedBinding()
    out: dict[str, Any] = {}

    def trial() -> None:
        session = _KillingSession(binding.session(case), real_host)
        try:
            out["evidence"] = real_host.run_trial(case, session, 1)
        except Exception as error:  # an errored Trial is an acceptable ending
            out["error"] = error
        out["killed"] = session.killed

    started = time.monotonic()
    worker = threading.Thread(target=trial, daemon=True)
    worker.start()
    worker.join(BOUND)
    assert not worker.is_alive(), f"the Trial hung for more than {BOUND}s"
    assert out["killed"]
    assert time.monotonic() - started < BOUND
    if "evidence" in out:
        results = [r for r in out["evidence"].tool_results or () if r.name.startswith("mcp_")]
        assert results and results[0].status == "failed", results
        assert "MCP provider" in (results[0].reason or "")
        assert out["evidence"].records["mcp"]["providerCalls"] is None  # not observed, not 0
    # the next Trial starts a new provider and passes again
    again = real_host.run_trial(case, binding.session(case), 1)
    assert again.records["mcp"]["providerCalls"] == 1
