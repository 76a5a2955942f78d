"""Each served wire, end to end: a real agent process calls the harness as its model (streamed
and not) and its Tools over MCP; the Tool call is witnessed where the harness received it."""

from __future__ import annotations

import pytest

from process_project import WIRES, Sweep, order_case


@pytest.mark.parametrize("wire", WIRES)
def test_an_agent_on_each_wire_is_swept_green(sweep: Sweep, wire: str) -> None:
    card, seen = sweep([order_case(f"order-on-{wire}", wire)])
    (trial,) = card.trials
    assert trial.outcome == "passed", trial.error or [e.detail for e in trial.expectations]
    evidence = seen[f"order-on-{wire}"]
    assert [(c.call_id, c.name, c.arguments) for c in evidence.tool_calls] == [
        ("c1", "lookup_order", {"order_id": "A-1"})
    ]
    assert [(r.status, r.output) for r in evidence.tool_results] == [
        ("succeeded", {"order_id": "A-1", "status": "shipped"})
    ]
    assert evidence.output_text == "Order A-1 has shipped."
    # the binding witness: what the agent sent, as the harness received it
    first, second = evidence.model_requests
    assert first.system == "You are the probe agent." and first.tools == [
        "lookup_order",
        "refund_order",
    ]
    assert second.messages[-1]["role"] == "tool" and "shipped" in second.messages[-1]["content"]


def test_a_scripted_tool_error_is_served_as_a_real_mcp_server_answers_one(sweep: Sweep) -> None:
    """The reason as plain text with ``isError`` (the agent marks it ``error: ``), whichever
    the status; the status itself is the witness's record, which MCP has no field for."""
    scripted = {
        "failed": {"name": "lookup_order", "error": "the order desk timed out"},
        "denied": {"name": "lookup_order", "denied": "orders of another customer"},
        "invalid_arguments": {"name": "lookup_order", "invalidArguments": "order_id: A-?"},
    }
    cases = [
        order_case(f"tool-{status}", "chat", toolResults=[result])
        | {"expect": [{"kind": "tool_called", "name": "lookup_order"}]}
        for status, result in scripted.items()
    ]
    card, seen = sweep(cases)
    assert [t.outcome for t in card.trials] == ["passed"] * 3, card.trials
    for status, result in scripted.items():
        reason = next(v for k, v in result.items() if k != "name")
        evidence = seen[f"tool-{status}"]
        assert [(r.status, r.output, r.reason) for r in evidence.tool_results] == [
            (status, None, reason)
        ]
        answered = evidence.model_requests[1].messages[-1]
        assert (answered["role"], answered["content"]) == ("tool", f"error: {reason}")
