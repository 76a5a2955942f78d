"""Turn endings the original's Cases rely on: ``request_input`` ends the Turn, and a refused
repeat of a side-effecting call stays in the record as an error result."""

from __future__ import annotations

from typing import Any

from agent_runtime.model import ModelResponse, ToolCallRequest, ToolSpec
from agent_runtime.soul.loader import Soul
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn.result import INPUT_REQUESTED, REQUEST_INPUT_FAILED
from runtime_doubles import ScriptedModel, ScriptedTools, call, say, turn

ASK = ToolSpec("request_input", "Ask the operator to choose.", {"type": "object"}, True)
CREATE = ToolSpec("agent_create", "Create an Agent.", {"type": "object"}, True)
NOTICE = ToolSpec(
    "send_notice",
    "Send one notice.",
    {"type": "object"},
    True,
    side_effecting=True,
    participant_activity="visible",
)


def _asked(eval_soul: Soul, answer: ToolOutcome) -> tuple[Any, ScriptedTools, ScriptedModel]:
    tools = ScriptedTools(request_input=answer, agent_create=ToolOutcome("succeeded", {}))
    model = ScriptedModel(
        call(("request_input", {"component": {"name": "Choices"}})),
        call(("agent_create", {"name": "Support Agent"})),
        say("Created the Agent."),
    )
    return turn(eval_soul, "support", model, [ASK, CREATE], tools), tools, model


def test_a_request_input_that_fails_ends_the_turn_failed(eval_soul: Soul) -> None:
    result, tools, model = _asked(eval_soul, ToolOutcome("failed", reason="choices required"))
    assert (result.status, result.reason) == ("failed", REQUEST_INPUT_FAILED)
    assert tools.names() == ["request_input"] and len(model.seen) == 1


def test_a_request_input_that_suspends_the_run_completes_the_turn(eval_soul: Soul) -> None:
    result, tools, model = _asked(eval_soul, ToolOutcome("succeeded", {"suspendRun": True}))
    assert (result.status, result.reason) == ("completed", INPUT_REQUESTED)
    assert tools.names() == ["request_input"] and len(model.seen) == 1


def test_a_request_input_answered_at_once_lets_the_turn_go_on(eval_soul: Soul) -> None:
    result, tools, _model = _asked(eval_soul, ToolOutcome("succeeded", {"choice": "basic"}))
    assert result.status == "completed" and result.reason is None
    assert tools.names() == ["request_input", "agent_create"]


def test_a_refused_repeat_is_recorded_as_an_error_result(eval_soul: Soul) -> None:
    events: list[tuple[str, dict[str, Any]]] = []
    tools = ScriptedTools(send_notice=ToolOutcome("succeeded", {"sent": True}))
    model = ScriptedModel(
        *[
            ModelResponse(tool_calls=[ToolCallRequest(f"n{i}", "send_notice", {"orderId": "o-1"})])
            for i in (1, 2)
        ],
        say("Sent once."),
    )
    turn(eval_soul, "support", model, [NOTICE], tools, listener=lambda k, p: events.append((k, p)))
    assert tools.names() == ["send_notice"]
    results = [p for kind, p in events if kind == "tool.result"]
    assert [r["status"] for r in results] == ["ok", "error"]
    repeat = results[1]
    assert repeat["errorCode"] == "repeated_side_effect" and repeat["name"] == "send_notice"
    assert repeat["participantActivity"] == "visible"
    assert (results[0]["callId"], repeat["callId"]) == ("n1", "n2")
