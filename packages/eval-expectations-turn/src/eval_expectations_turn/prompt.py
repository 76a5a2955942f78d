"""The prompt family: what the model was given, read from the real assembled prompt.

Text is compared exactly (case and whitespace matter): a prompt is ours, not the model's.
"""

from __future__ import annotations

from typing import Any

from eval_core.plugin import (
    NON_EMPTY,
    Evidence,
    Expectation,
    KindSpec,
    ModelRequest,
    Problems,
    Tier,
    Verdict,
    failed,
    hookimpl,
    non_empty,
    passed,
    properties,
    quote,
    quoted,
)

L2: frozenset[Tier] = frozenset({"l2"})


class PromptContains(Expectation, tag="prompt_contains", frozen=True):
    text: str


class PromptOmits(Expectation, tag="prompt_omits", frozen=True):
    text: str


class ModelPromptContains(Expectation, tag="model_prompt_contains", frozen=True):
    text: str


class ModelPromptOmits(Expectation, tag="model_prompt_omits", frozen=True):
    text: str


class ModelNotCalled(Expectation, tag="model_not_called", frozen=True):
    pass


class ModelMessagesInOrder(Expectation, tag="model_messages_in_order", frozen=True):
    texts: list[str]


def _around(haystack: str, index: int, length: int, margin: int = 40) -> str:
    """A one-line excerpt of ``haystack`` around a match, to show where it sits."""
    start = max(index - margin, 0)
    end = min(index + length + margin, len(haystack))
    head = "…" if start > 0 else ""
    tail = "…" if end < len(haystack) else ""
    return f'"{head}{quote(haystack[start:end], 2 * margin + length)}{tail}"'


def _score_prompt_contains(e: PromptContains, ev: Evidence) -> Verdict:
    prompt = ev.system_prompt
    if prompt is None:
        return failed(f"system prompt not observed; cannot look for {quoted(e.text)}")
    index = prompt.find(e.text)
    if index < 0:
        return failed(f"system prompt ({len(prompt)} chars) does not contain {quoted(e.text)}")
    return passed(
        f"system prompt ({len(prompt)} chars) contains {quoted(e.text)} at offset {index}: "
        f"{_around(prompt, index, len(e.text))}"
    )


def _score_prompt_omits(e: PromptOmits, ev: Evidence) -> Verdict:
    prompt = ev.system_prompt
    if prompt is None:
        return failed(f"system prompt not observed; cannot confirm it omits {quoted(e.text)}")
    index = prompt.find(e.text)
    if index >= 0:
        return failed(
            f"system prompt ({len(prompt)} chars) contains {quoted(e.text)} at offset {index}: "
            f"{_around(prompt, index, len(e.text))}"
        )
    return passed(f"system prompt ({len(prompt)} chars) omits {quoted(e.text)}")


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


def _score_model_prompt_contains(e: ModelPromptContains, ev: Evidence) -> Verdict:
    requests = ev.model_requests
    if requests is None:
        return failed(f"model requests not observed; cannot look for {quoted(e.text)}")
    if not requests:
        return failed(f"the model received no request; cannot look for {quoted(e.text)}")
    last = requests[-1]
    pieces = _pieces(last)
    count = len(last.messages) if isinstance(last.messages, list) else 0
    where = f"last model request (#{len(requests)}: system + {count} messages)"
    for label, text in pieces:
        index = text.find(e.text)
        if index >= 0:
            return passed(
                f"{where} contains {quoted(e.text)} in its {label}: "
                f"{_around(text, index, len(e.text))}"
            )
    return failed(f"{where} does not contain {quoted(e.text)}")


def _pieces(request: ModelRequest) -> list[tuple[str, str]]:
    """A request as sent, as labelled texts: its instructions, then each message's text."""
    pieces: list[tuple[str, str]] = []
    if isinstance(request.system, str):
        pieces.append(("system", request.system))
    messages = request.messages if isinstance(request.messages, list) else []
    for number, message in enumerate(messages):
        pieces.extend((f"message {number}", text) for text in _message_texts(message))
    return pieces


def _score_model_prompt_omits(e: ModelPromptOmits, ev: Evidence) -> Verdict:
    requests = ev.model_requests
    if requests is None:
        return failed(f"model requests not observed; cannot confirm they omit {quoted(e.text)}")
    if not requests:
        return failed(f"the model received no request; cannot confirm it omits {quoted(e.text)}")
    for number, request in enumerate(requests, start=1):
        for label, text in _pieces(request):
            index = text.find(e.text)
            if index >= 0:
                return failed(
                    f"model request #{number} of {len(requests)} contains {quoted(e.text)} in "
                    f"its {label}: {_around(text, index, len(e.text))}"
                )
    return passed(f"none of the {len(requests)} model request(s) contains {quoted(e.text)}")


def _score_messages_in_order(e: ModelMessagesInOrder, ev: Evidence) -> Verdict:
    """The last request as sent: each text in a message after the one that held the text
    before it (the conversation in the order it was held, whatever the runtime read)."""
    requests = ev.model_requests
    if requests is None:
        return failed("model requests not observed; cannot read the order of their messages")
    if not requests:
        return failed("the model received no request; cannot read the order of its messages")
    last = requests[-1]
    messages = last.messages if isinstance(last.messages, list) else []
    where = f"last model request (#{len(requests)}: {len(messages)} messages)"
    found: list[str] = []
    start = 0
    for text in e.texts:
        at = next(
            (
                n
                for n in range(start, len(messages))
                if any(text in piece for piece in _message_texts(messages[n]))
            ),
            None,
        )
        if at is None:
            earlier = next(
                (
                    n
                    for n in range(0, start)
                    if any(text in piece for piece in _message_texts(messages[n]))
                ),
                None,
            )
            seen = "; ".join(found) or "nothing yet"
            if earlier is not None:
                return failed(
                    f"{where}: {quoted(text)} is in message {earlier}, before the text that "
                    f"precedes it ({seen})"
                )
            return failed(f"{where}: no message from {start} on holds {quoted(text)} ({seen})")
        found.append(f"{quoted(text, 40)} in message {at}")
        start = at + 1
    return passed(f"{where} holds the texts in order: " + "; ".join(found))


def _check_in_order(e: ModelMessagesInOrder, _case: object) -> Problems:
    texts = e.texts if isinstance(e.texts, list) else []
    problems: Problems = []
    if len(texts) < 2:
        problems.append((".texts", "must list at least two texts (an order needs two)"))
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            problems.append((f".texts[{index}]", "must be a string"))
        else:
            problems += non_empty(text, f".texts[{index}]")
    return problems


def _score_model_not_called(e: ModelNotCalled, ev: Evidence) -> Verdict:
    calls = ev.model_calls
    if calls is None:
        return failed("model calls not observed")
    if calls == 0:
        return passed("the model was not called")
    return failed(f"the model was called {calls} time{'s' if calls != 1 else ''}")


def _check_text(
    e: PromptContains | PromptOmits | ModelPromptContains | ModelPromptOmits, _case: object
) -> Problems:
    return non_empty(e.text, ".text")


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=PromptContains,
            witness="binding",
            scorer=_score_prompt_contains,
            check=_check_text,
            json_schema=properties(text=NON_EMPTY),
            text_compare="exact",
            description="The real assembled system prompt contains the text (exact substring).",
        ),
        KindSpec(
            struct=PromptOmits,
            witness="binding",
            scorer=_score_prompt_omits,
            check=_check_text,
            json_schema=properties(text=NON_EMPTY),
            text_compare="exact",
            description="The real assembled system prompt does not contain the text (exact).",
        ),
        KindSpec(
            struct=ModelPromptContains,
            witness="binding",
            scorer=_score_model_prompt_contains,
            tiers=L2,
            check=_check_text,
            json_schema=properties(text=NON_EMPTY),
            text_compare="exact",
            description=(
                "The last model request (after compaction) contains the text in its system "
                "prompt or in one message's string content (exact substring)."
            ),
        ),
        KindSpec(
            struct=ModelPromptOmits,
            witness="binding",
            scorer=_score_model_prompt_omits,
            tiers=L2,
            check=_check_text,
            json_schema=properties(text=NON_EMPTY),
            text_compare="exact",
            seam_independent=True,
            description=(
                "No model request (each after compaction) contains the text, in its system "
                "prompt or in any message's string content (exact substring)."
            ),
        ),
        KindSpec(
            struct=ModelMessagesInOrder,
            witness="binding",
            scorer=_score_messages_in_order,
            check=_check_in_order,
            json_schema=properties(texts={"minItems": 2, "items": NON_EMPTY}),
            text_compare="exact",
            description=(
                "The last model request, as the binding sent it, holds each text in one of its "
                "messages (exact substring), each in a later message than the text before it."
            ),
        ),
        KindSpec(
            struct=ModelNotCalled,
            witness="binding",
            scorer=_score_model_not_called,
            text_compare="exact",
            seam_independent=True,
            description="The model was never called in the Trial.",
        ),
    ]
