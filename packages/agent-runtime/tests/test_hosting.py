"""Hosting: the Tool gate decides soul_repo_push by who hosts the Soul repository; a Soul run on
the platform runs under the platform's safety floor as well as its own guardrails."""

from __future__ import annotations

import pytest

from agent_runtime.hosting import Hosting
from agent_runtime.loop import run_turn
from agent_runtime.model import ModelRequest, ModelResponse, ToolCallRequest
from agent_runtime.soul import Soul
from agent_runtime.tools import PLATFORM_TOOLS, ToolOutcome

PUSH = ToolCallRequest("c1", "soul_repo_push", {})


class Model:
    def __init__(self, *steps: ModelResponse) -> None:
        self.steps = list(steps)

    def complete(self, request: ModelRequest) -> ModelResponse:
        return self.steps.pop(0)


class Pushes:
    def __init__(self) -> None:
        self.executed: list[str] = []

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.executed.append(call.name)
        return ToolOutcome("succeeded", {"pushed": False})


def push(soul: Soul, hosting: Hosting) -> tuple[list[str], list[tuple[str, str]]]:
    tools = Pushes()
    result = run_turn(
        soul,
        "soul-author",
        context={},
        messages=[{"role": "user", "content": "Publish the Soul."}],
        tools=[PLATFORM_TOOLS["soul_repo_push"]],
        model=Model(ModelResponse(tool_calls=[PUSH]), ModelResponse(text="Done.")),
        executor=tools,
        hosting=hosting,
    )
    return tools.executed, [(d.source, d.reason) for d in result.denials]


def test_a_platform_hosted_repository_is_never_pushed(eval_soul: Soul) -> None:
    executed, denials = push(eval_soul, Hosting(repository="platform"))
    assert executed == []
    assert denials == [
        (
            "hosting",
            "soul_repo_push: this Soul's repository is hosted by the platform, which publishes "
            "it; an agent may not push it",
        )
    ]


def test_an_independent_repository_is_pushed_by_its_agent(eval_soul: Soul) -> None:
    assert push(eval_soul, Hosting()) == (["soul_repo_push"], [])
    assert push(eval_soul, Hosting(safety="platform")) == (["soul_repo_push"], [])


def test_who_hosts_is_one_of_two(eval_soul: Soul) -> None:
    with pytest.raises(ValueError, match="repository must be one of"):
        Hosting(repository="tulipfarm")  # type: ignore[arg-type]
