"""The protocol ``eval-process/1`` between the Host and the agent's process (docs/process-host.md).

stdin: one JSON document, then EOF (:func:`stdin_document`). stdout: exactly one JSON document,
``{"answer": str, "status": "completed" | "failed", "reason"?: str}`` (:func:`answer_of`);
anything else errors the Trial in one line naming what was printed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from eval_core.hosts import CaseBase, one_line
from eval_host_process.process import AgentError
from eval_host_process.wire import loads

PROTOCOL = "eval-process/1"
STATUSES = ("completed", "failed")


@dataclass(frozen=True, slots=True)
class Answer:
    """What the agent printed: its final text and how its loop ended."""

    text: str
    status: str
    reason: str | None


def stdin_document(case: CaseBase) -> bytes:
    """The Case's conversation for the agent: every message, and the last user message."""
    messages = [{"role": m.role, "content": m.text} for m in case.input]
    last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    document = {
        "protocol": PROTOCOL,
        "case": case.id,
        "agent": case.agent,
        "messages": messages,
        "input": last,
    }
    return json.dumps(document, ensure_ascii=False).encode()


def _printed(stdout: bytes) -> str:
    text = one_line(stdout.decode("utf-8", "replace").strip())
    return repr(text[:80] + "…" if len(text) > 80 else text)


def answer_of(stdout: bytes) -> Answer:
    """The agent's answer, or :class:`AgentError` with one line naming what it printed."""
    if not stdout.strip():
        raise AgentError("the agent printed nothing on stdout: no answer")
    try:
        document: Any = loads(stdout)
    except (ValueError, UnicodeDecodeError):
        raise AgentError(
            f"the agent printed something that is not an answer: {_printed(stdout)}"
        ) from None
    if not isinstance(document, dict):
        raise AgentError(f"the agent printed something that is not an answer: {_printed(stdout)}")
    text, status, reason = document.get("answer"), document.get("status"), document.get("reason")
    if not isinstance(text, str):
        raise AgentError(f"the agent's answer has no text 'answer': {_printed(stdout)}")
    if status not in STATUSES:
        raise AgentError(
            f"the agent's answer has status {status!r}; expected 'completed' or 'failed'"
        )
    if reason is not None and not isinstance(reason, str):
        raise AgentError("the agent's answer has a 'reason' that is not text")
    return Answer(text=text, status=status, reason=one_line(reason) if reason else None)
