"""The durable families' Tool names checked at load against what the Case's agent is offered:
a further Turn's scripted calls and results (``journey``), an earlier attempt's calls
(``attemptHistory``), and the L3 kinds that name a Tool (``tool_result_field_equals``...),
through the kit's reference Host, each refused with its JSON path and the nearest Tool."""

from __future__ import annotations

from typing import Any

LOOKUP = {"name": "lookup_ticket", "inputSchema": {"type": "object"}}
DONE = [{"kind": "text", "text": "Done."}]
SUCCEEDED = {"kind": "run_status", "status": "succeeded"}


def l3(kit: Any, *expect: dict[str, Any], **fields: Any) -> list[str]:
    return kit.problems(kit.case(*(expect or (SUCCEEDED,)), tier="l3", tools=[LOOKUP], **fields))


def calls(name: str, **extra: Any) -> list[dict[str, Any]]:
    call = {"callId": "j1", "name": name, "arguments": {}, **extra}
    return [{"kind": "tool_calls", "calls": [call]}, *DONE]


def test_a_further_turns_misspelt_call_is_refused_at_its_path(eval_kit: Any) -> None:
    turn = {"input": [{"role": "user", "content": "And T-2?"}], "script": calls("lookup_tiket")}
    assert l3(eval_kit, journey=[turn]) == [
        "$.journey[0].script[0].calls[0].name: 'lookup_tiket' is not a Tool of agent 'assistant' "
        "in this Case (its tools and platformTools); it has: lookup_ticket; did you mean "
        "'lookup_ticket'? (a call the Case scripts to a Tool the agent lacks, on purpose, says "
        '"unoffered": true)'
    ]


def test_a_further_turns_unoffered_call_may_be_named(eval_kit: Any) -> None:
    turn = {
        "input": [{"role": "user", "content": "What time is it?"}],
        "script": calls("get_current_time", unoffered=True),
    }
    named = {"kind": "tool_not_called", "name": "get_current_time"}
    assert l3(eval_kit, SUCCEEDED, named, journey=[turn]) == []


def test_a_further_turns_misspelt_result_names_the_nearest_tool(eval_kit: Any) -> None:
    turn = {
        "input": [{"role": "user", "content": "And T-2?"}],
        "toolResults": [{"name": "lookup_tickets", "output": {}}],
    }
    assert l3(eval_kit, journey=[turn]) == [
        "$.journey[0].toolResults[0].name: scripted result for 'lookup_tickets', which the Case "
        "does not declare (tools, platformTools); did you mean 'lookup_ticket'?"
    ]


def test_an_earlier_attempts_misspelt_call_is_refused(eval_kit: Any) -> None:
    history = {
        "text": "Looking.",
        "toolCalls": [{"callId": "p1", "name": "lookup", "outcome": "ok"}],
    }
    [problem] = l3(eval_kit, attemptHistory=history)
    assert problem.startswith(
        "$.attemptHistory.toolCalls[0].name: 'lookup' is not a Tool of agent 'assistant'"
    )


def test_the_l3_kinds_that_name_a_tool_are_checked(eval_kit: Any) -> None:
    targeted = {
        "kind": "tool_result_field_equals",
        "name": "lookup_tickt",
        "argumentPath": "id",
        "argumentValue": "T-1",
        "status": "succeeded",
        "outputPath": "$",
        "value": {},
    }
    denial = {"kind": "tool_denial_contains", "name": "lookup_ticket", "text": "denied"}
    problems = l3(eval_kit, SUCCEEDED, targeted, denial, script=DONE)
    assert problems == [
        "$.expect[1].name: 'lookup_tickt' is not a Tool of agent 'assistant' in this Case (its "
        "tools and platformTools); it has: lookup_ticket; did you mean 'lookup_ticket'?"
    ]
