"""The scripted binding and scripted Tools follow the dispatch semantics exactly."""

from __future__ import annotations

import msgspec
import pytest

from eval_core._case.case import (
    ScriptedCall,
    ScriptedResult,
    StructuredStep,
    TextStep,
    ToolCallsStep,
    ToolDecl,
)
from eval_core._case.evidence import OfferedTool, RepliedCall
from eval_core._plugins.host import ModelCallRequest
from eval_core._running.scripted import ScriptedSession, ScriptedTools, ScriptExhaustedError


def results(*raw: dict[str, object]) -> list[ScriptedResult]:
    return [msgspec.convert(r, ScriptedResult) for r in raw]


def test_results_are_consumed_in_order_and_the_last_repeats() -> None:
    tools = ScriptedTools(results({"name": "a", "output": 1}, {"name": "a", "output": 2}))
    assert [tools.execute("a", {}).output for _ in range(4)] == [1, 2, 2, 2]


def test_when_matches_arguments_by_deep_equality() -> None:
    tools = ScriptedTools(
        results(
            {"name": "a", "when": {"q": "x"}, "output": "for x"},
            {"name": "a", "when": {"q": "y"}, "output": "for y"},
        )
    )
    assert tools.execute("a", {"q": "y"}).output == "for y"
    assert tools.execute("a", {"q": "x"}).output == "for x"
    assert tools.execute("a", {"q": "y"}).output == "for y"  # exhausted: repeats
    missing = tools.execute("a", {"q": "z"})
    assert missing.status == "failed"
    assert missing.reason == (
        "the Eval Case scripts no result for Tool \"a\" matching arguments {'q': 'z'}"
    )


def test_an_unscripted_tool_fails_naming_itself() -> None:
    outcome = ScriptedTools([]).execute("web_fetch", {})
    assert outcome.status == "failed"
    assert outcome.reason == 'the Eval Case scripts no result for Tool "web_fetch"'


@pytest.mark.parametrize(
    ("raw", "status", "reason"),
    [
        ({"name": "a", "denied": "no"}, "denied", "no"),
        ({"name": "a", "error": "boom"}, "failed", "boom"),
        ({"name": "a", "invalidArguments": "bad id"}, "invalid_arguments", "bad id"),
        ({"name": "a"}, "succeeded", None),
    ],
)
def test_outcomes(raw: dict[str, object], status: str, reason: str | None) -> None:
    outcome = ScriptedTools(results(raw)).execute("a", {})
    assert (outcome.status, outcome.reason) == (status, reason)
    if status == "succeeded":
        assert outcome.output == {}


class _Case:
    id = "c"

    def __init__(self, steps: list[object]) -> None:
        self.script = steps


def test_the_script_replays_one_step_per_call_then_is_exhausted() -> None:
    steps = [
        ToolCallsStep(calls=[ScriptedCall(call_id="1", name="a")]),
        StructuredStep(value={"ok": True}),
        TextStep(text="done"),
    ]
    session = ScriptedSession(_Case(steps))  # type: ignore[arg-type]
    request = ModelCallRequest(system="s", messages=[], tools=[])
    first = session.complete(request)
    assert [c.name for c in first.tool_calls] == ["a"]
    assert session.complete(request).structured == {"ok": True}
    assert session.complete(request).text == "done"
    with pytest.raises(ScriptExhaustedError, match="script exhausted"):
        session.complete(request)


def test_each_request_recorded_keeps_the_calls_its_script_answered() -> None:
    steps = [
        ToolCallsStep(
            calls=[
                ScriptedCall(call_id="1", name="a"),
                ScriptedCall(call_id="2", name="b", unoffered=True),
            ]
        ),
        TextStep(text="done"),
    ]
    session = ScriptedSession(_Case(steps))  # type: ignore[arg-type]
    request = ModelCallRequest(system="s", messages=[], tools=[])
    session.complete(request)
    session.complete(request)
    first, last = session.sent
    assert first.replied == [
        RepliedCall(call_id="1", name="a"),
        RepliedCall(call_id="2", name="b", unoffered=True),
    ]
    assert last.replied is None  # a text answer calls nothing
    assert "replied" not in msgspec.json.decode(msgspec.json.encode(last))  # transcripts as before


def test_each_request_recorded_keeps_the_declarations_of_the_tools_it_offered() -> None:
    decl = ToolDecl(
        name="file_read",
        description="Reads a File.",
        input_schema={"type": "object", "required": ["fileId"]},
    )
    session = ScriptedSession(_Case([TextStep(text="done")]))  # type: ignore[arg-type]
    session.complete(ModelCallRequest(system="s", messages=[], tools=[decl]))
    (record,) = session.sent
    assert record.tools == ["file_read"]
    assert record.offered == [
        OfferedTool(
            name="file_read",
            description="Reads a File.",
            input_schema={"type": "object", "required": ["fileId"]},
        )
    ]
