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

from eval_core.case import CaseBase, CaseField, TextPart, ToolDecl, json_name
from eval_core.guard import collect


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

    The Case's own material is searched as one NUL-joined string per pool (a NUL never occurs
    in a needle, so a match never spans two sources). The Soul's text, the same for every Case
    of an agent, is asked for only when the Case's own material misses, and its folded and
    collapsed forms are cached across Cases.
    """

    __slots__ = ("_first", "_joined", "_rest", "_soul", "_soul_source")

    def __init__(
        self, first_request: list[str], rest: list[str], soul: Callable[[], Sequence[str]]
    ) -> None:
        self._first = first_request
        self._rest = rest
        self._soul_source = soul
        self._soul: Sequence[str] | None = None
        self._joined: dict[tuple[bool, bool, bool], str] = {}

    def _hay(self, first_only: bool, casefold: bool, collapse: bool) -> str:
        key = (first_only, casefold, collapse)
        hay = self._joined.get(key)
        if hay is None:
            pool = self._first if first_only else self._first + self._rest
            hay = "\0".join(_fold(s) for s in pool) if casefold else "\0".join(pool)
            if collapse:
                hay = _collapse(hay)
            self._joined[key] = hay
        return hay

    def _souls(self) -> Sequence[str]:
        if self._soul is None:
            self._soul = self._soul_source()
        return self._soul

    def contains(self, needle: str, *, casefold: bool, first_request: bool = False) -> bool:
        fold = casefold and not first_request
        needle = needle.casefold() if fold else needle
        if needle in self._hay(first_request, fold, collapse=False):
            return True
        souls = [_fold(s) if fold else s for s in self._souls()]
        if any(needle in s for s in souls):
            return True
        collapsed = _collapse(needle)
        if collapsed in self._hay(first_request, fold, collapse=True):
            return True
        return any(collapsed in _collapse(s) for s in souls)

    def matches(self, pattern: str) -> bool:
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error:
            return True  # an uncompilable pattern is refused by its own check, not here
        pool = [*self._first, *self._rest, *self._souls()]
        return any(compiled.search(s) or compiled.search(_collapse(s)) for s in pool)


def given_text(
    case: CaseBase,
    soul_text: Callable[[], Sequence[str]],
    platform: Mapping[str, ToolDecl],
    fields: Iterable[CaseField],
) -> GivenText:
    """The Case's given text: the first request's material, the rest, and (lazily) the Soul's.

    A plug-in field's text function that raises is a :class:`~eval_core.guard.PluginFault`."""
    first: list[str] = []
    rest: list[str] = []
    for message in case.input:
        texts = (p.text for p in message.parts if isinstance(p, TextPart))
        (rest if message.role == "assistant" else first).extend(texts)
    first.extend(strings(case.context or {}))
    for name in case.platform_tools:
        decl = platform.get(name)
        if decl is not None and decl.description:
            first.append(decl.description)
    first.extend(t.description for t in case.tools if t.description)
    for result in case.tool_results:
        rest.extend(strings(result.output))
        rest.extend(s for s in (result.denied, result.error, result.invalid_arguments) if s)
    for case_field in fields:
        value = case.field(case_field.name)
        if value is None:
            continue
        field = json_name(case_field.name)
        if case_field.first_request_text is not None:
            what = f"first_request_text of the Case field {field!r}"
            first.extend(collect(case_field.origin, what, case_field.first_request_text, value))
        if case_field.given_text is not None:
            what = f"given_text of the Case field {field!r}"
            rest.extend(collect(case_field.origin, what, case_field.given_text, value))
    return GivenText(first, rest, soul_text)
