"""A team's project in a temporary folder, run by the process Host: its agents are the test
agent (``agents/loop_agent.py``, speaking any served wire) and its misbehaving variants."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval_core.records import Scorecard

AGENT = Path(__file__).parent / "agents" / "loop_agent.py"
WIRES = ("chat", "chat-stream", "responses", "responses-stream", "messages", "messages-stream")
RUN = "EVAL_PROCESS_TEST_RUN"
"""Passed to every agent of these tests (``pass_env``), set to this test run's own value: what
finds the processes of this run's agents, and only them, among other runs' on the machine."""
MISBEHAVING = (
    "env",
    "refused",
    "hang",
    "crash",
    "garbage",
    "flood",
    "daemon",
    "orphan",
    "fork-daemon",
    "raise-tool",
    "give-up",
)

MANIFEST = """
[tools.lookup_order]
description = "Look an order up by its id."
[tools.lookup_order.parameters]
type = "object"
properties = {{ order_id = {{ type = "string" }} }}
required = ["order_id"]

[tools.refund_order]
description = "Refund an order."
parameters = {{ type = "object", properties = {{ order_id = {{ type = "string" }} }} }}

{agents}
"""


def _agent(name: str, wire: str, misbehaviour: str | None = None) -> str:
    argv = [sys.executable, str(AGENT), wire] + ([misbehaviour] if misbehaviour else [])
    return (
        f"[agents.{name.replace('-', '_')}]\ncommand = {json.dumps(' '.join(argv))}\n"
        'tools = ["lookup_order", "refund_order"]\ninternal_tools = ["format_date"]\n'
    )


def write_project(root: Path, timeout: float = 20, start: str = "fork-server") -> Path:
    """A project whose agents are ``<wire>`` for each wire and ``<misbehaviour>`` for each way
    of breaking the protocol, started as ``start`` says; its Corpus folder is returned
    (empty)."""
    agents = [_agent(w, w) for w in WIRES] + [_agent(m, "chat", m) for m in MISBEHAVING]
    root.mkdir(parents=True, exist_ok=True)
    (root / "agents.toml").write_text(MANIFEST.format(agents="\n".join(agents)))
    (root / "pyproject.toml").write_text(
        '[project]\nname = "team"\nversion = "0"\n\n'
        f'[tool.eval]\nhost = "process"\ntimeout = {timeout}\npass_env = "{RUN}"\n'
        f'start = "{start}"\n'
    )
    corpus = root / "corpus"
    corpus.mkdir(exist_ok=True)
    return corpus


def order_case(case_id: str, agent: str, **more: Any) -> dict[str, Any]:
    """A Case: the model looks order A-1 up (scripted result), then answers."""
    case: dict[str, Any] = {
        "id": case_id,
        "tier": "l2",
        "agent": agent.replace("-", "_"),
        "input": [{"role": "user", "content": "Where is order A-1?"}],
        "platformTools": ["lookup_order"],
        "toolResults": [
            {"name": "lookup_order", "output": {"order_id": "A-1", "status": "shipped"}}
        ],
        "script": [
            {
                "kind": "tool_calls",
                "calls": [
                    {"callId": "c1", "name": "lookup_order", "arguments": {"order_id": "A-1"}}
                ],
            },
            {"kind": "text", "text": "Order A-1 has shipped."},
        ],
        "expect": [
            {"kind": "tool_called", "name": "lookup_order"},
            {
                "kind": "tool_argument_equals",
                "name": "lookup_order",
                "path": "order_id",
                "value": "A-1",
            },
            {"kind": "output_contains", "text": "shipped"},
            {"kind": "loop_status", "status": "completed"},
        ],
    }
    case.update(more)
    return case


Sweep = Callable[..., tuple[Scorecard, dict[str, Any]]]
