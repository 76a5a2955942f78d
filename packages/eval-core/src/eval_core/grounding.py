"""The grounding rule: a content Expectation must rest on what the model was given.

Given text is every string of the Soul material the Host sends for the Case's agent, the Case's
``context``, its input text, its scripted Tool results, the descriptions of the Tools it
declares, and whatever plug-in fields say they give (File content, journey inputs). Never the
``script``, ids or file names: a Case may not ground an Expectation in what it tells the model
to say. Whitespace is collapsed on both sides: a fact wrapped over two lines is still given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from eval_core.case import CaseBase, CaseField, TextPart, ToolDecl


def strings(value: Any) -> Iterator[str]:
    """Every string inside a decoded JSON-like value, keys excluded."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


@lru_cache(maxsize=8192)
def _collapse(text: str) -> str:
    return " ".join(text.split())


@lru_cache(maxsize=8192)
def _fold(text: str) -> str:
    return text.casefold()


class GivenText:
    """What one Case gave the model, split into everything and the first request's material.

    Lookups try the raw strings first and collapse whitespace only when that misses: most
    grounded text is found verbatim, and loading stays fast.
    """

    __slots__ = ("first_request", "given")

    def __init__(self, given: list[str], first_request: list[str]) -> None:
        self.given = given
        self.first_request = first_request

    def contains(self, needle: str, *, casefold: bool, first_request: bool = False) -> bool:
        pool = self.first_request if first_request else self.given
        if casefold and not first_request:
            folded = needle.casefold()
            if any(folded in _fold(s) for s in pool):
                return True
            folded = _collapse(folded)
            return any(folded in _collapse(_fold(s)) for s in pool)
        if any(needle in s for s in pool):
            return True
        needle = _collapse(needle)
        return any(needle in _collapse(s) for s in pool)

    def matches(self, pattern: str) -> bool:
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error:
            return True  # an uncompilable pattern is refused by its own check, not here
        return any(compiled.search(s) or compiled.search(_collapse(s)) for s in self.given)


def given_text(
    case: CaseBase,
    soul_text: Sequence[str],
    platform: Mapping[str, ToolDecl],
    fields: Iterable[CaseField],
) -> GivenText:
    first: list[str] = list(soul_text)
    first.extend(strings(case.context or {}))
    for message in case.input:
        if message.role != "assistant":
            first.extend(p.text for p in message.parts if isinstance(p, TextPart))
    for name in case.platform_tools:
        decl = platform.get(name)
        if decl is not None and decl.description:
            first.append(decl.description)
    first.extend(t.description for t in case.tools if t.description)
    given = list(first)
    for message in case.input:
        if message.role == "assistant":
            given.extend(p.text for p in message.parts if isinstance(p, TextPart))
    for result in case.tool_results:
        given.extend(strings(result.output))
        given.extend(s for s in (result.denied, result.error, result.invalid_arguments) if s)
    for case_field in fields:
        value = case.field(case_field.name)
        if value is None:
            continue
        if case_field.given_text is not None:
            given.extend(case_field.given_text(value))
        if case_field.first_request_text is not None:
            extra = list(case_field.first_request_text(value))
            first.extend(extra)
            given.extend(extra)
    return GivenText(given, first)
