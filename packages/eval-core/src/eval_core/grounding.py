"""The grounding rule: a content Expectation must rest on what the model was given.

Given text is every string of the Soul material the Host sends for the Case's agent, the Case's
``context``, its input text, its scripted Tool results, the descriptions of the Tools it
declares, and whatever plug-in fields say they give (File content, journey inputs). Never the
``script``, ids or file names: a Case may not ground an Expectation in what it tells the model
to say. Whitespace is collapsed on both sides: a fact wrapped over two lines is still given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
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
    """What one Case gave the model: the first request's material, then everything else.

    Both are drawn lazily and kept once drawn, so a lookup stops at its first match; lookups
    try the raw strings first and collapse whitespace only when that misses.
    """

    __slots__ = ("_first", "_first_source", "_rest", "_rest_source")

    def __init__(self, first_request: Iterable[str], rest: Iterable[str]) -> None:
        self._first: list[str] = []
        self._rest: list[str] = []
        self._first_source: Iterator[str] | None = iter(first_request)
        self._rest_source: Iterator[str] | None = iter(rest)

    def _pool(self, first_only: bool) -> Iterator[str]:
        yield from _drawn(self._first, self, "_first_source")
        if not first_only:
            yield from _drawn(self._rest, self, "_rest_source")

    def contains(self, needle: str, *, casefold: bool, first_request: bool = False) -> bool:
        if casefold and not first_request:
            folded = needle.casefold()
            if any(folded in _fold(s) for s in self._pool(False)):
                return True
            folded = _collapse(folded)
            return any(folded in _collapse(_fold(s)) for s in self._pool(False))
        if any(needle in s for s in self._pool(first_request)):
            return True
        needle = _collapse(needle)
        return any(needle in _collapse(s) for s in self._pool(first_request))

    def matches(self, pattern: str) -> bool:
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error:
            return True  # an uncompilable pattern is refused by its own check, not here
        return any(compiled.search(s) or compiled.search(_collapse(s)) for s in self._pool(False))


def _drawn(cache: list[str], owner: GivenText, source: str) -> Iterator[str]:
    """Yield what was drawn already, then draw the rest from ``owner.<source>`` into ``cache``."""
    index = 0
    while True:
        if index < len(cache):
            yield cache[index]
            index += 1
            continue
        iterator = getattr(owner, source)
        item = next(iterator, None) if iterator is not None else None
        if item is None:
            setattr(owner, source, None)
            return
        cache.append(item)


def given_text(
    case: CaseBase,
    soul_text: Callable[[], Sequence[str]],
    platform: Mapping[str, ToolDecl],
    fields: Iterable[CaseField],
) -> GivenText:
    """The Case's given text; ``soul_text`` is asked only if the Case's own material misses."""
    fields = [f for f in fields if case.field(f.name) is not None]

    def first() -> Iterator[str]:
        for message in case.input:
            if message.role != "assistant":
                yield from (p.text for p in message.parts if isinstance(p, TextPart))
        yield from strings(case.context or {})
        for name in case.platform_tools:
            decl = platform.get(name)
            if decl is not None and decl.description:
                yield decl.description
        yield from (t.description for t in case.tools if t.description)
        for case_field in fields:
            if case_field.first_request_text is not None:
                yield from case_field.first_request_text(case.field(case_field.name))
        yield from soul_text()

    def rest() -> Iterator[str]:
        for result in case.tool_results:
            yield from strings(result.output)
            yield from (s for s in (result.denied, result.error, result.invalid_arguments) if s)
        for message in case.input:
            if message.role == "assistant":
                yield from (p.text for p in message.parts if isinstance(p, TextPart))
        for case_field in fields:
            if case_field.given_text is not None:
                yield from case_field.given_text(case.field(case_field.name))

    return GivenText(first(), rest())
