"""The requests no model API takes: a check of what the binding was handed, on every Trial.

The scripted model answers whatever it is sent, so an agent whose history is malformed (a Tool
result with no call before it, a call left unanswered, a message of no known role, a part the
wires cannot put on the wire) passes every scripted Case and fails only against a real model.
The rules are the vendors' own, over the neutral shape of
:class:`~eval_core._plugins.host.ModelCallRequest`: OpenAI's Chat Completions refuses a ``tool``
message that answers no earlier ``tool_calls`` and an assistant's calls not each answered before
the conversation goes on; Anthropic's Messages refuses a ``tool_result`` whose ``tool_use`` is
not in the turn before. The binding's record is the witness: the check reads no testimony.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from eval_core._case.evidence import Evidence
from eval_core._util.paths import quoted

ROLES = ("user", "assistant", "tool")
PART_TYPES = ("text", "file", "image")


def malformed_requests(evidence: Evidence) -> Iterable[str]:
    """One line per request the binding was handed that a model API would refuse, naming the
    request's number and its first fault. A request that carries the last one's messages on
    (the usual case: a Turn's history grows) is checked from where they end."""
    checked: list[Any] = []  # the last request's messages, found well formed
    made: set[str] = set()  # the call ids they made
    for number, request in enumerate(evidence.model_requests or (), start=1):
        messages = request.messages
        if messages[: len(checked)] != checked:  # identical items compare at once
            checked, made = [], set()
        fault = _first_fault(messages, len(checked), made)
        if fault is None:
            checked = messages
        else:
            checked, made = [], set()
            yield f"model request #{number} {fault}, which no model API accepts"


def _first_fault(messages: list[Any], start: int, made: set[str]) -> str | None:
    open_calls: list[str] = []  # the calls of the last assistant message, not yet answered
    for at in range(start + 1, len(messages) + 1):
        fault = _message_fault(at, messages[at - 1], made, open_calls)
        if fault is not None:
            return fault
    return f"ends before call {quoted(open_calls[0])} is answered" if open_calls else None


def _message_fault(at: int, message: Any, made: set[str], open_calls: list[str]) -> str | None:
    role = message.get("role") if isinstance(message, dict) else message
    if role not in ROLES:
        return f"has message {at} of role {quoted(str(role))}"
    if role == "tool":
        answered = str(message.get("tool_call_id") or message.get("call_id") or "")
        if answered not in open_calls:
            said = "no call" if not answered else f"call {quoted(answered)}"
            return f"has a Tool result (message {at}) for {said}, which no open call made"
        open_calls.remove(answered)
        return None
    if open_calls:
        return f"goes on (message {at}) before call {quoted(open_calls[0])} is answered"
    if role == "user":
        fault = _part_fault(message.get("content"))
        return None if fault is None else f"has message {at} with {fault}"
    return _calls_fault(at, message.get("tool_calls") or [], made, open_calls)


def _calls_fault(at: int, calls: Any, made: set[str], open_calls: list[str]) -> str | None:
    """An assistant message's Tool calls: each with an id made once, a name and arguments."""
    if not isinstance(calls, list):
        return f"has message {at} whose tool_calls are not a list"
    for call in calls:
        call_id = _call_id(call)
        if not call_id or not call.get("name"):
            return f"has a Tool call without an id or a name (message {at})"
        if "arguments" not in call:
            return f"has call {quoted(call_id)} without arguments (message {at})"
        if call_id in made:
            return f"has call id {quoted(call_id)} twice (message {at})"
        made.add(call_id)
        open_calls.append(call_id)
    return None


def _call_id(call: Any) -> str:
    if not isinstance(call, dict):
        return ""
    return str(call.get("call_id") or call.get("id") or "")


def _part_fault(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return None
    if not isinstance(content, list):
        return f"content of type {type(content).__name__}"
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in PART_TYPES:
            return f"a part of type {quoted(str(kind))} (the wires send text, file and image)"
        if kind == "text" and not isinstance(part.get("text"), str):
            return "a text part without text"
    return None
