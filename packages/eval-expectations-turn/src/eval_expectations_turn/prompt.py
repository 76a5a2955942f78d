"""The prompt family: what the model was given, read from the real assembled prompt.

Text is compared exactly (case and whitespace matter): a prompt is ours, not the model's.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from eval_core.kinds import (
    NON_EMPTY,
    TEXT,
    Evidence,
    Expectation,
    KindSpec,
    Location,
    ModelRequest,
    Problems,
    Verdict,
    absent,
    failed,
    hookimpl,
    need,
    non_empty,
    passed,
    present,
    properties,
    quote,
    quoted,
    rules,
    scorer,
)
from eval_expectations_turn.offered import tool_offered_kind


class _Text(Expectation, frozen=True):
    text: str


class PromptContains(_Text, tag="prompt_contains", frozen=True): ...


class PromptOmits(_Text, tag="prompt_omits", frozen=True): ...


class ModelPromptContains(_Text, tag="model_prompt_contains", frozen=True): ...


class ModelPromptOmits(_Text, tag="model_prompt_omits", frozen=True): ...


class ModelNotCalled(Expectation, tag="model_not_called", frozen=True):
    pass


class ModelMessagesInOrder(Expectation, tag="model_messages_in_order", frozen=True):
    """``roles[i]`` is the role of the message that must hold ``texts[i]``: an earlier assistant
    turn handed to the model as a user message keeps its text and its order, not its role."""

    texts: list[str]
    roles: list[str]


ROLES = ("user", "assistant", "tool", "system")
"""The roles of the neutral request shape (:class:`eval_core.hosts.ModelCallRequest`)."""


def _a(role: str) -> str:
    return f"an {role}" if role[:1] in "aeio" else f"a {role}"  # "a user"


def _role(message: Any) -> str | None:
    role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
    return role if isinstance(role, str) else None


def _around(haystack: str, index: int, length: int, margin: int = 40) -> str:
    """A one-line excerpt of ``haystack`` around a match, to show where it sits."""
    start = max(index - margin, 0)
    end = min(index + length + margin, len(haystack))
    head = "…" if start > 0 else ""
    tail = "…" if end < len(haystack) else ""
    return f'"{head}{quote(haystack[start:end], 2 * margin + length)}{tail}"'


def _in_prompt(prompt: str, text: str) -> str | None:
    """Where the system prompt holds the text, or ``None``."""
    index = prompt.find(text)
    if index < 0:
        return None
    return (
        f"system prompt ({len(prompt)} chars) contains {quoted(text)} at offset {index}: "
        f"{_around(prompt, index, len(text))}"
    )


@scorer
def _score_prompt_contains(e: PromptContains, ev: Evidence) -> Verdict:
    prompt = need(ev.system_prompt, f"system prompt not observed; cannot look for {quoted(e.text)}")
    otherwise = f"system prompt ({len(prompt)} chars) does not contain {quoted(e.text)}"
    return present(_in_prompt(prompt, e.text), otherwise)


@scorer
def _score_prompt_omits(e: PromptOmits, ev: Evidence) -> Verdict:
    why = f"system prompt not observed; cannot confirm it omits {quoted(e.text)}"
    prompt = need(ev.system_prompt, why)
    otherwise = f"system prompt ({len(prompt)} chars) omits {quoted(e.text)}"
    return absent(_in_prompt(prompt, e.text), otherwise)


def _sent(ev: Evidence, unobserved: str, unsent: str) -> list[ModelRequest]:
    """The requests the binding sent, or the scorer fails: not observed, or none sent."""
    requests = need(ev.model_requests, f"model requests not observed; {unobserved}")
    return need(requests or None, f"the model received no request; {unsent}")


def _message_texts(message: Any) -> list[str]:
    """The string content of one model-request message, whatever its shape."""
    if isinstance(message, str):
        return [message]
    if isinstance(message, dict):
        content = message.get("content")
    else:
        content = getattr(message, "content", None)
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(getattr(part, "text", None), str):
                texts.append(part.text)
    return texts


@scorer
def _score_model_prompt_contains(e: ModelPromptContains, ev: Evidence) -> Verdict:
    requests = _sent(ev, f"cannot look for {quoted(e.text)}", f"cannot look for {quoted(e.text)}")
    last = requests[-1]
    pieces = _pieces(last)
    count = len(last.messages) if isinstance(last.messages, list) else 0
    where = f"last model request (#{len(requests)}: system + {count} messages)"
    at = Location.request_at(len(requests) - 1)
    for label, text in pieces:
        index = text.find(e.text)
        if index >= 0:
            return passed(
                f"{where} contains {quoted(e.text)} in its {label}: "
                f"{_around(text, index, len(e.text))}",
                at,
            )
    return failed(f"{where} does not contain {quoted(e.text)}", at)


def _pieces(request: ModelRequest) -> list[tuple[str, str]]:
    """A request as sent, as labelled texts: its instructions, then each message's text."""
    pieces: list[tuple[str, str]] = []
    if isinstance(request.system, str):
        pieces.append(("system", request.system))
    messages = request.messages if isinstance(request.messages, list) else []
    for number, message in enumerate(messages):
        pieces.extend((f"message {number}", text) for text in _message_texts(message))
    return pieces


@scorer
def _score_model_prompt_omits(e: ModelPromptOmits, ev: Evidence) -> Verdict:
    requests = _sent(
        ev,
        f"cannot confirm they omit {quoted(e.text)}",
        f"cannot confirm it omits {quoted(e.text)}",
    )
    for number, request in enumerate(requests, start=1):
        for label, text in _pieces(request):
            index = text.find(e.text)
            if index >= 0:
                return failed(
                    f"model request #{number} of {len(requests)} contains {quoted(e.text)} in "
                    f"its {label}: {_around(text, index, len(e.text))}",
                    Location.request_at(number - 1),
                )
    return passed(f"none of the {len(requests)} model request(s) contains {quoted(e.text)}")


@scorer
def _score_messages_in_order(e: ModelMessagesInOrder, ev: Evidence) -> Verdict:
    """The last request as sent: each text in a message of its role, after the one that held
    the text before it (the conversation in the order and the roles it was held in, whatever
    the runtime read)."""
    requests = _sent(
        ev, "cannot read the order of their messages", "cannot read the order of its messages"
    )
    last = requests[-1]
    messages = last.messages if isinstance(last.messages, list) else []
    where = f"last model request (#{len(requests)}: {len(messages)} messages)"

    def holds(n: int, text: str) -> bool:
        return any(text in piece for piece in _message_texts(messages[n]))

    if len(e.roles) != len(e.texts):
        return failed(f"{len(e.texts)} texts but {len(e.roles)} roles: cannot match them up")
    found: list[str] = []
    start = 0
    for text, role in zip(e.texts, e.roles, strict=True):
        at = next(
            (
                n
                for n in range(start, len(messages))
                if holds(n, text) and _role(messages[n]) == role
            ),
            None,
        )
        if at is None:
            seen = "; ".join(found) or "nothing yet"
            other = next((n for n in range(start, len(messages)) if holds(n, text)), None)
            if other is not None:
                held = _role(messages[other]) or "roleless"
                return failed(
                    f"{where}: {quoted(text)} is in message {other}, {_a(held)} message, not "
                    f"{_a(role)} message ({seen})"
                )
            earlier = next((n for n in range(0, start) if holds(n, text)), None)
            if earlier is not None:
                return failed(
                    f"{where}: {quoted(text)} is in message {earlier}, before the text that "
                    f"precedes it ({seen})"
                )
            return failed(f"{where}: no message from {start} on holds {quoted(text)} ({seen})")
        found.append(f"{quoted(text, 40)} in message {at} ({role})")
        start = at + 1
    return passed(f"{where} holds the texts in order, each in its role: " + "; ".join(found))


def _check_in_order(e: ModelMessagesInOrder, _case: object) -> Problems:
    texts = e.texts if isinstance(e.texts, list) else []
    roles = e.roles if isinstance(e.roles, list) else []
    problems: Problems = []
    if len(texts) < 2:
        problems.append((".texts", "must list at least two texts (an order needs two)"))
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            problems.append((f".texts[{index}]", "must be a string"))
        else:
            problems += non_empty(text, f".texts[{index}]")
    if len(roles) != len(texts):
        problems.append(
            (".roles", f"must give one role per text ({len(texts)}), the role of its message")
        )
    for index, role in enumerate(roles):
        if role not in ROLES:
            problems.append((f".roles[{index}]", f"must be one of {', '.join(ROLES)}"))
    return problems


@scorer
def _score_model_not_called(e: ModelNotCalled, ev: Evidence) -> Verdict:
    calls = need(ev.model_calls, "model calls not observed")
    if calls == 0:
        return passed("the model was not called")
    return failed(f"the model was called {calls} time{'s' if calls != 1 else ''}")


@hookimpl
def eval_kinds() -> list[KindSpec]:
    binding = partial(KindSpec, witness="binding", evidence_at=Location.REQUESTS)
    text = partial(binding, **rules(text=TEXT))
    return [
        text(
            struct=PromptContains,
            scorer=_score_prompt_contains,
            description="The real assembled system prompt contains the text (exact substring).",
            examples=[{"kind": "prompt_contains", "text": "Politely decline anything else"}],
        ),
        text(
            struct=PromptOmits,
            scorer=_score_prompt_omits,
            description="The real assembled system prompt does not contain the text (exact).",
            examples=[{"kind": "prompt_omits", "text": "- web_fetch:"}],
        ),
        text(
            struct=ModelPromptContains,
            scorer=_score_model_prompt_contains,
            description=(
                "The last model request (after compaction) contains the text in its system "
                "prompt or in one message's string content (exact substring)."
            ),
            examples=[{"kind": "model_prompt_contains", "text": "is too long"}],
        ),
        text(
            struct=ModelPromptOmits,
            scorer=_score_model_prompt_omits,
            seam_independent=True,
            description=(
                "No model request (each after compaction) contains the text, in its system "
                "prompt or in any message's string content (exact substring)."
            ),
            examples=[{"kind": "model_prompt_omits", "text": "Shelf 0535:"}],
        ),
        binding(
            struct=ModelMessagesInOrder,
            scorer=_score_messages_in_order,
            check=_check_in_order,
            json_schema=properties(
                texts={"minItems": 2, "items": NON_EMPTY},
                roles={"minItems": 2, "items": {"enum": list(ROLES)}},
            ),
            description=(
                "The last model request, as the binding sent it, holds each text in one of its "
                "messages (exact substring) whose role is the text's role in roles, each in a "
                "later message than the text before it."
            ),
            examples=[
                {
                    "kind": "model_messages_in_order",
                    "texts": ["Refund order A-1001", "not delivered"],
                    "roles": ["user", "tool"],
                }
            ],
        ),
        binding(
            struct=ModelNotCalled,
            scorer=_score_model_not_called,
            seam_independent=True,
            description="The model was never called in the Trial.",
            examples=[{"kind": "model_not_called"}],
        ),
        tool_offered_kind(),
    ]
