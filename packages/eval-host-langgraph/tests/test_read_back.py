"""The run read back from the graph's final state when its history no longer holds every call:
a graph that trims its messages (``trim_messages``, a summary node) may drop the AIMessage whose
call a ToolMessage answers, and the read-back still files each ToolMessage under the Tool it
names, as LangGraph recorded it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from eval_host_langgraph.trial import evidence_of


def _as_sent(_name: str, _call_id: str, arguments: Any) -> Any:
    return arguments


def test_a_tool_message_whose_call_was_trimmed_is_read_under_the_tool_it_names() -> None:
    messages = [
        HumanMessage("Where is order 4471? Or hand me to a person."),
        ToolMessage('{"status": "shipped"}', name="lookup_order", tool_call_id="call-1"),
        ToolMessage(
            "Error: escalate is not a valid tool, try one of [lookup_order].",
            name="escalate",
            tool_call_id="call-2",
            status="error",
        ),
        AIMessage("Order 4471 has shipped."),
    ]
    evidence = evidence_of(messages, "completed", None, None, frozenset({"lookup_order"}), _as_sent)
    assert [(r.call_id, r.name, r.status) for r in evidence.tool_results] == [
        ("call-1", "lookup_order", "succeeded"),
        ("call-2", "escalate", "denied"),
    ]
    assert [(d.call_id, d.name, d.source) for d in evidence.denials] == [
        ("call-2", "escalate", "langgraph")
    ]
    assert [(c.call_id, c.name) for c in evidence.testimony.tool_calls] == [
        ("call-1", "lookup_order")
    ]
    assert evidence.output_text == "Order 4471 has shipped."
