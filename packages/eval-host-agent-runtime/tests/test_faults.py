"""The fault ports decide where a fault strikes: here, where the armed chat worker dies."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.durable.scenario import WorkerDiedError
from agent_runtime.model import ToolCallRequest
from eval_host_agent_runtime.faults import DependencyFaultService


class _Tools:
    """The Tools behind the worker: the calls that reached them, in order."""

    def __init__(self) -> None:
        self.reached: list[str] = []

    def execute(self, call: ToolCallRequest) -> Any:
        self.reached.append(call.call_id)
        return {"ok": call.call_id}


def _call(call_id: str) -> ToolCallRequest:
    return ToolCallRequest(call_id=call_id, name="lookup_ticket", arguments={})


def test_a_killed_worker_dies_once_as_it_hands_over_its_second_call() -> None:
    """The first call reaches its Tool (its result is what the new worker resumes from), the
    worker dies handing over the second, and the worker that takes over is not killed again."""
    faults = DependencyFaultService()
    tools = _Tools()
    faults.kill_worker()
    worker = faults.worker(tools)  # type: ignore[arg-type]
    assert worker.execute(_call("c1")) == {"ok": "c1"}
    assert tools.reached == ["c1"] and not faults.fired()
    with pytest.raises(WorkerDiedError, match="c2"):
        worker.execute(_call("c2"))
    assert tools.reached == ["c1"] and faults.fired()
    assert worker.execute(_call("c2")) == {"ok": "c2"}
    assert tools.reached == ["c1", "c2"]


def test_an_unarmed_worker_is_the_executor_itself() -> None:
    tools = _Tools()
    assert DependencyFaultService().worker(tools) is tools  # type: ignore[arg-type]
