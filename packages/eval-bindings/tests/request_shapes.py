"""Every shape of request a Host's tool loop sends a model, one set for every test that puts
them on a wire: the real local server's acceptance test and the loopback fakes of vLLM and
Ollama."""

from __future__ import annotations

from eval_core._case.case import ToolDecl
from eval_core._plugins.host import ModelCallRequest

LOOKUP = ToolDecl(
    name="lookup_order",
    description="Looks up an order by its four-digit number.",
    input_schema={
        "type": "object",
        "properties": {"orderId": {"type": "string", "pattern": "^[0-9]{4}$"}},
        "required": ["orderId"],
        "additionalProperties": False,
    },
)


def shapes() -> dict[str, ModelCallRequest]:
    """Each shape of request a Host's loop sends: the first call with and without Tools, a call
    after a Tool result (the assistant's ``content`` empty, never null), a later Turn with the
    history in it, a user message of text parts, an empty system prompt."""
    user = {"role": "user", "content": "Has order 4471 shipped?"}
    called = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"call_id": "c1", "name": "lookup_order", "arguments": {"orderId": "4471"}}],
    }
    result = {"role": "tool", "tool_call_id": "c1", "name": "lookup_order", "content": '{"ok":1}'}
    answered = {"role": "assistant", "content": "Order 4471 has shipped."}
    parts = {
        "role": "user",
        "content": [{"type": "text", "text": "And order"}, {"type": "text", "text": "4472?"}],
    }
    system = "You are Clerk at Tulip Farm."
    return {
        "first call, no Tools": ModelCallRequest(system=system, messages=[user], tools=[]),
        "first call, Tools offered": ModelCallRequest(
            system=system, messages=[user], tools=[LOOKUP]
        ),
        "after a Tool result": ModelCallRequest(
            system=system, messages=[user, called, result], tools=[LOOKUP]
        ),
        "a later Turn": ModelCallRequest(
            system=system, messages=[user, called, result, answered, parts], tools=[LOOKUP]
        ),
        "no system prompt": ModelCallRequest(system="", messages=[user], tools=[LOOKUP]),
    }
