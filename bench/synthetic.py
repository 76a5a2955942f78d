"""Synthetic Corpora for the benchmarks: realistic sizes, all valid, all passing when swept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from eval_core._plugins import lock
from eval_core._plugins.plugins import load_plugins

ROOT = Path(__file__).resolve().parent.parent


def synthetic_case(n: int) -> dict[str, Any]:
    """Three messages, two Tools, one call and its result, an answer, four Expectations."""
    ticket = f"T-{n}"
    return {
        "id": f"case-{n:05d}",
        "tier": "l2",
        "agent": "support",
        "input": [
            {"role": "user", "content": f"Hello, I ordered tulip bulbs under ticket {ticket}."},
            {"role": "assistant", "content": "Thanks! Let me have a look at that ticket."},
            {"role": "user", "content": f"When will order {n} ship? It is ticket {ticket}."},
        ],
        "platformTools": ["lookup_ticket", "get_current_time"],
        "toolResults": [
            {
                "name": "lookup_ticket",
                "when": {"ticketId": ticket},
                "output": {"ticketId": ticket, "orderId": str(n), "status": "packed"},
            }
        ],
        "script": [
            {
                "kind": "tool_calls",
                "calls": [
                    {"callId": "c1", "name": "lookup_ticket", "arguments": {"ticketId": ticket}}
                ],
            },
            {
                "kind": "text",
                "text": f"Order {n} is packed and ships from Lisse within 2 business days.",
            },
        ],
        "expect": [
            {"kind": "tool_called", "name": "lookup_ticket"},
            {
                "kind": "tool_argument_equals",
                "name": "lookup_ticket",
                "path": "ticketId",
                "value": ticket,
            },
            {"kind": "output_contains", "text": "packed"},
            {"kind": "loop_status", "status": "completed"},
        ],
    }


def answer_only(case: dict[str, Any]) -> dict[str, Any]:
    """The Case without its Tool call: one model call, an answer (for real-model benchmarks)."""
    return {
        **{k: v for k, v in case.items() if k not in ("platformTools", "toolResults")},
        "script": [case["script"][-1]],
        "expect": [
            {"kind": "output_contains", "text": "ship"},
            {"kind": "loop_status", "status": "completed"},
        ],
    }


def make_corpus(directory: Path, count: int, tool_call: bool = True) -> Path:
    """Write ``count`` Cases beside a copy of the Eval Soul and a lock of the installed set;
    without ``tool_call`` each Case is one model call and an answer."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    shutil.copytree(ROOT / "corpus" / "soul", directory / "soul")
    lock.write(directory / lock.LOCK_NAME, load_plugins(), "agent-runtime")  # what is installed
    for n in range(count):
        case = synthetic_case(n) if tool_call else answer_only(synthetic_case(n))
        (directory / f"{case['id']}.json").write_text(json.dumps(case, indent=2))
    return directory
