"""The original's canonical envelopes in a ``routine`` block mean what the block's form means."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from eval_expectations_routine.block import RoutineBlock, block_problems

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


def _envelope(kind: str, spec: dict[str, Any], slug: str = "eval-send") -> dict[str, Any]:
    return {
        "apiVersion": "tulipfarm.ai/v1",
        "kind": kind,
        "metadata": {"slug": slug, "schemaVersion": 1},
        "spec": spec,
    }


def _canonical(rules: list[dict[str, Any]], decision: str = "deny") -> RoutineBlock:
    states = [
        {"type": "compute", "name": "Capture", "input": {"output": "${ states.Send.output }"}}
        | {"end": True},
        {"type": "tool", "name": "Send", "toolRef": {"name": "eval.message.send"}}
        | {"action": "message.send", "input": {"text": "${ input.text }"}, "transition": "Capture"},
    ]  # listed out of order: the flow (start, transition) decides the order
    contract = {"toolId": "eval.message.send", "action": "message.send", "mutating": True}
    block = {
        "definition": _envelope("Routine", {"start": "Send", "states": states}),
        "toolContract": _envelope("ToolContract", contract | {"inputSchema": SCHEMA}),
        "guardrail": _envelope("Guardrail", {"defaultDecision": decision, "rules": rules}),
        "inputs": {"text": "hello"},
        "providerSteps": [{"kind": "success", "output": {"receiptId": "r-1"}}],
    }
    return msgspec.convert(block, RoutineBlock)


ALLOW = {"type": "allow", "actions": ["message.send"]}
APPROVE = {"type": "approval", "actions": ["message.send"], "minimumApprovers": 1}


def test_a_canonical_block_resolves_to_the_blocks_own_form() -> None:
    resolved = _canonical([ALLOW, APPROVE]).resolved()
    own = msgspec.to_builtins(resolved.definition)
    assert own["slug"] == "eval-send" and own["inputs"] == {"text": {}}
    assert own["states"] == [
        {"key": "send", "type": "tool", "tool": "eval.message.send"}
        | {"arguments": {"text": {"$from": "inputs.text"}}},
        {"key": "capture", "type": "capture", "output": {"$from": "states.send.output"}},
    ]
    contract = resolved.tool_contract
    assert (contract.name, contract.mutating, contract.requires_approval) == (
        "eval.message.send",
        True,
        True,
    )
    assert resolved.guardrail is None  # allowed: no guard beyond the runtime's own
    assert not list(block_problems(_canonical([ALLOW])))


@pytest.mark.parametrize("rules", [[], [{"type": "deny", "actions": ["message.send"]}, ALLOW]])
def test_an_action_the_guardrail_does_not_allow_is_blocklisted(rules: list[Any]) -> None:
    resolved = _canonical(rules).resolved()
    assert resolved.guardrail == {
        "tool-call": [{"guard": "tool_blocklist", "block": ["eval.message.send"]}]
    }
    assert not resolved.tool_contract.requires_approval


def test_a_state_this_runner_cannot_run_is_refused_with_its_path() -> None:
    block = _canonical([ALLOW])
    block.definition["spec"]["states"][0]["type"] = "wait"
    assert list(block_problems(block)) == [
        (
            "$.routine.definition.spec.states[0].type",
            "'wait': a Routine run here has tool and compute States only",
        )
    ]
