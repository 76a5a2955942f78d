"""What the three served wires share: a request feature refused, a body read, ids, SSE framing.

A request the harness cannot relay faithfully to the Trial's binding (``n > 1``, ``logprobs``,
audio, a hosted Tool...) is a :class:`Refused`: answered ``400`` with the reason, and the Trial
errors with that line, since a reply that silently dropped the feature would measure something
the agent did not ask for.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from eval_core.hosts import ModelReply, TooDeep, ToolDecl, check_json_depth


class Refused(Exception):  # noqa: N818 - it names an outcome
    """The request asks for something the harness does not relay; the message says what."""


def require(condition: bool, reason: str) -> None:
    if not condition:
        raise Refused(reason)


def refuse_present(body: Mapping[str, Any], wire: str, keys: Iterable[str]) -> None:
    """Refuse the first of ``keys`` the body sets to something other than null/false."""
    for key in keys:
        value = body.get(key)
        if value not in (None, False):
            raise Refused(f"{wire}: {key!r} is not relayed by the harness")


def tool_decl(name: Any, description: Any, schema: Any, wire: str) -> ToolDecl:
    require(isinstance(name, str) and bool(name), f"{wire}: a function Tool without a name")
    if schema is None:
        schema = {"type": "object", "properties": {}}
    require(isinstance(schema, dict), f"{wire}: Tool {name!r}: its parameters are not an object")
    text = description if isinstance(description, str) else None
    return ToolDecl(name=str(name), input_schema=dict(schema), description=text)


def kind_of(item: Any) -> Any:
    """An item's ``type`` (a JSON object's), else its Python type's name: what a refusal names."""
    return item.get("type") if isinstance(item, dict) else type(item).__name__


def text_of(content: Any, wire: str, kinds: Collection[str]) -> str:
    """A content given as text or as a list of text parts (each of one of ``kinds``), joined; a
    refusal part reads as its text."""
    if content is None or isinstance(content, str):
        return content or ""
    require(isinstance(content, list), f"{wire}: a content is neither text nor a list of parts")
    texts = []
    for part in content:
        kind = kind_of(part)
        require(kind in kinds, f"{wire}: a content part of type {kind!r} is not relayed here")
        texts.append(str(part.get("text") or part.get("refusal") or ""))
    return "".join(texts)


def tool_decls(
    raw: Any, wire: str, *, kind: str, schema: str, untyped: str | None
) -> list[ToolDecl]:
    """A body's flat ``tools`` list (Responses, Messages): each of the one ``kind`` the wire
    relays, its schema under ``schema``; a Tool without a ``type`` is ``untyped``'s kind."""
    tools: list[ToolDecl] = []
    for tool in raw or ():
        got = tool.get("type", untyped) if isinstance(tool, dict) else kind_of(tool)
        require(got == kind, f"{wire}: only {kind} Tools are relayed, not {got!r}")
        tools.append(tool_decl(tool.get("name"), tool.get("description"), tool.get(schema), wire))
    return tools


def stop_reason(reply: ModelReply, *, tools: str, length: str, end: str) -> str:
    """Why the reply stopped, in a wire's words: it called Tools, ran out of length, or ended."""
    if reply.tool_calls:
        return tools
    return length if reply.finish_reason in ("length", "max_tokens") else end


def arguments_of(text: Any) -> Any:
    """A call's arguments as the model sent them: parsed JSON, or the raw string kept."""
    if isinstance(text, str):
        if not text.strip():
            return {}
        try:
            return loads(text)
        except ValueError:
            return text
    return text


def arguments_text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(12)}"


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event: ``event:`` (when named) and one ``data:`` line of compact JSON."""
    line = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {line}\n\n".encode()


def loads(data: bytes | str) -> Any:
    """JSON the agent sent (a request body, its answer, a Tool result), held to the depth
    limit before it is decoded; ``ValueError`` (or :class:`TooDeep`) when it is not JSON."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        check_json_depth(raw)
    except TooDeep as exc:
        raise ValueError(exc.reason) from None
    return json.loads(raw)
