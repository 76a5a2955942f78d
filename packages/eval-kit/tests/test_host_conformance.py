"""The Host conformance check: the reference Host holds it; a Host that breaks each rule is
named for each, so the check is known to look (a check that never fails proves nothing)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from eval_core.hosts import ContextRules, ModelCallRequest, ModelSession
from eval_core.kinds import (
    CaseBase,
    Evidence,
    ScriptStep,
    TextStep,
    Tier,
    ToolCall,
    ToolCallsStep,
    ToolDecl,
)
from eval_host_agent_runtime.host import AgentRuntimeHost
from eval_kit import HostProbe, assert_host_conforms


def test_the_reference_host_conforms(tmp_path: Path) -> None:
    assert_host_conforms(HostProbe(factory=AgentRuntimeHost), tmp_path)


class _Mailbox:
    """A service the broken Host declares and never offers."""

    def deliver(self, text: str) -> None: ...


class _CopyingTrial:
    """Calls the model, then reports the Case's own script as what happened: testimony."""

    def __init__(self, case: CaseBase, model: ModelSession) -> None:
        self.case, self.model = case, model

    def services(self) -> Sequence[object]:
        return ()

    def run(self) -> Evidence:
        steps: list[ScriptStep] = list(self.case.script or [])
        request = ModelCallRequest(system="You help.", messages=[], tools=self.case.tools)
        for _ in steps:
            self.model.complete(request)
        calls = [
            ToolCall(call_id=c.call_id, name=c.name, arguments=c.arguments)
            for s in steps
            if isinstance(s, ToolCallsStep)
            for c in s.calls
        ]
        text = next((s.text for s in reversed(steps) if isinstance(s, TextStep)), None)
        return Evidence(
            tier="l3",  # an L2 Trial's Evidence said to be of the other tier
            tool_calls=[
                *calls,
                *(
                    ToolCall(call_id="x", name=r.name, arguments={})
                    for r in self.case.tool_results
                    if not calls
                ),
            ],
            output_text=text,
            loop_status="completed",
        )

    def close(self) -> None:
        pass


class _BrokenHost:
    """Copies Evidence from the Case, declares a service it lacks, leaks on close."""

    name = "broken"
    tiers = frozenset({"l2"})

    def __init__(self, soul_dir: Path) -> None:
        listening = socket.socket()
        listening.bind(("127.0.0.1", 0))
        self._stop = threading.Event()
        poller = threading.Thread(
            target=self._poll, args=(listening,), name="broken-poller", daemon=True
        )
        poller.start()

    def _poll(self, listening: socket.socket) -> None:
        """Holds its socket until told to stop, which close() never does."""
        self._stop.wait()
        listening.close()

    def agents(self) -> frozenset[str]:
        return frozenset({"assistant"})

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return {}

    def context_rules(self) -> ContextRules:
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        return ("You help.",)

    def services(self, tier: Tier) -> Sequence[type]:
        return (_Mailbox,)

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> _CopyingTrial:
        return _CopyingTrial(case, model)

    def close(self) -> None:
        """Forgets the poller thread and the socket: what the check must catch."""


def test_a_broken_host_is_named_for_each_rule_it_breaks(tmp_path: Path) -> None:
    with pytest.raises(AssertionError) as refused:
        assert_host_conforms(HostProbe(factory=_BrokenHost), tmp_path)
    message = str(refused.value)
    assert "the Host declares _Mailbox, but a Trial offers 0" in message
    assert "Evidence holds [('probe_lookup', {'query': 'order 7'})]" in message
    assert "output_text is 'Order 7 has shipped.'" in message
    assert "l2 witnesses: the Trial's Evidence says tier 'l3'" in message
    assert "the model called no Tool, but tool_calls is [ToolCall(" in message
    assert "thread 'broken-poller' still runs after close()" in message
    assert "socket:[" in message and "still open after close()" in message
    assert "probe-model-raises is" not in message  # the core errors a raising port in one line
    assert "names: offered_tools gives no answer for agent 'assistant'" in message


def test_a_host_that_declares_no_tiers_is_named(tmp_path: Path) -> None:
    """``tiers`` is part of the Host contract: the loader refuses a Case of another tier."""

    class _Untiered(_BrokenHost):
        tiers = None  # type: ignore[assignment]

    with pytest.raises(AssertionError) as refused:
        assert_host_conforms(HostProbe(factory=_Untiered), tmp_path)
    assert "tiers: the Host declares none; a Host offers l2 and/or l3" in str(refused.value)
