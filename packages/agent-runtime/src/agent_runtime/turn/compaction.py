"""Compaction: the conversation folded to fit the model's context budget.

Before each model call of a Turn that has a budget, the runtime estimates the request's size
(the system prompt and the messages, about four characters a token). Over budget, it folds the
older messages (everything before the latest user message) into one summary message that keeps
the first line of each, dropping the oldest lines first while even that does not fit. The
latest user message and everything after it (this Turn's Tool calls and results, the Files a
``file_read`` attached among them) are always sent whole. Only what reaches the model is
compacted: the history is left as it is.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import msgspec

CHARS_PER_TOKEN = 4
SUMMARY_HEADING = "Summary of the earlier conversation (compacted to fit the context budget):"
LINE_CHARS = 120


class Compaction(msgspec.Struct, frozen=True):
    """What one compaction did: tokens before and after, messages folded and lines dropped."""

    before: int
    after: int
    folded: int
    dropped: int


def estimate(system: str, messages: Sequence[dict[str, Any]]) -> int:
    """The request's size in tokens, estimated from its characters."""
    chars = len(system) + sum(len(_text(m)) for m in messages)
    return -(-chars // CHARS_PER_TOKEN)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        text = content
    elif content is None:
        text = ""
    else:
        text = json.dumps(content, ensure_ascii=False)
    calls = message.get("tool_calls")
    return text + (json.dumps(calls, ensure_ascii=False) if calls else "")


def _line(message: dict[str, Any]) -> str:
    role = str(message.get("role"))
    if role == "tool":
        role = f"tool {message.get('name')}"
    calls = message.get("tool_calls") or ()
    text = _text({"content": message.get("content")}).strip()
    if calls and not text:
        text = "called " + ", ".join(str(c.get("name")) for c in calls)
    first = text.splitlines()[0] if text else ""
    if len(first) > LINE_CHARS:
        first = first[: LINE_CHARS - 1] + "…"
    return f"- {role}: {first}"


def compact(
    system: str, messages: Sequence[dict[str, Any]], budget: int, own: int | None = None
) -> tuple[list[dict[str, Any]], Compaction | None]:
    """The messages to send under ``budget`` tokens, and what was done (``None``: nothing).

    ``own``: where the Turn's own messages begin. The latest user message is looked for before
    it: the Files a ``file_read`` attached ride in a user message the Turn adds, which is one
    of its Tool results, not the user's words (taken for them, it folded the user's question).
    """
    before = estimate(system, messages)
    said = messages[:own] if own is not None else messages
    latest = max((i for i, m in enumerate(said) if m.get("role") == "user"), default=0)
    older, kept = list(messages[:latest]), list(messages[latest:])
    if before <= budget or not older:
        return list(messages), None
    lines = [_line(m) for m in older]
    dropped = 0
    while True:
        omitted = [f"- ({dropped} older messages omitted)"] if dropped else []
        summary = {"role": "user", "content": "\n".join([SUMMARY_HEADING, *omitted, *lines])}
        sent = [summary, *kept]
        after = estimate(system, sent)
        if after <= budget or not lines:
            return sent, Compaction(before, after, len(older), dropped)
        lines.pop(0)
        dropped += 1
