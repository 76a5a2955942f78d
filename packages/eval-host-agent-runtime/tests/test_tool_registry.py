"""Fixture Tools: one fixture's handler per Tool name. No shipped family registers one (only
the test plug-in ``tests/outbox``), so no Case can have two fixtures claim one Tool; were it
allowed, the later handler would answer the calls silently and the first fixture's record
would read a Tool that never ran."""

from __future__ import annotations

import pytest

from agent_runtime.model import ToolCallRequest
from eval_host_agent_runtime.ports import ScriptedExecutor
from eval_host_agent_runtime.services import ToolRegistryService


def test_a_tool_registered_twice_is_refused_and_the_first_handler_keeps_it() -> None:
    registry = ToolRegistryService()
    registry.register("send_email", lambda arguments: {"queuedBy": "outbox"})
    with pytest.raises(ValueError, match=r"^Tool 'send_email' is registered twice$"):
        registry.register("send_email", lambda arguments: {"queuedBy": "another fixture"})
    tools = registry.tools(ScriptedExecutor([]))
    outcome = tools.execute(ToolCallRequest("c1", "send_email", {"to": "ops@example.com"}))
    assert (outcome.status, outcome.output) == ("succeeded", {"queuedBy": "outbox"})


def test_a_handler_that_raises_fails_the_call_with_its_error_as_the_reason() -> None:
    def full(arguments: object) -> object:
        raise ValueError("the outbox is full")

    def silent(arguments: object) -> object:
        raise RuntimeError

    registry = ToolRegistryService()
    registry.register("send_email", full)
    registry.register("page_oncall", silent)
    tools = registry.tools(ScriptedExecutor([]))
    sent = tools.execute(ToolCallRequest("c1", "send_email", {"to": "ops@example.com"}))
    assert (sent.status, sent.reason) == ("failed", "the outbox is full")
    paged = tools.execute(ToolCallRequest("c2", "page_oncall", {}))
    assert (paged.status, paged.reason) == ("failed", "RuntimeError")  # no message: its type
