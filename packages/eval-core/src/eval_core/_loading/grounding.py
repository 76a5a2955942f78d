"""The grounding rule: a content Expectation must rest on what the model was given.

Given text is every string of the Soul material the Host sends for the Case's agent, the Case's
``context``, its input text, its scripted Tool results, the descriptions of the Tools it
declares, and whatever plug-in fields say they give (File content, journey inputs). Never the
``script``, ids or file names: a Case may not ground an Expectation in what it tells the model
to say. Whitespace is collapsed on both sides: a fact wrapped over two lines is still given.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from eval_core._case.case import CaseBase, CaseField, TextPart, ToolDecl, json_name
from eval_core._case.kinds import KindSpec
from eval_core._util.guard import collect


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

    A needle is first looked for source by source, straight from the Case, stopping at the
    first hit (most are found in the input or a Tool result, and nothing is built). Only a
    miss builds the pools: the Case's own material as one NUL-joined string per pool (a NUL
    never occurs in a needle, so a match never spans two sources), searched also with
    whitespace collapsed, then the Soul's text, the same for every Case of an agent, asked for
    only now, its folded and collapsed forms cached across Cases.
    """

    __slots__ = (
        "_case",
        "_fields",
        "_fields_text",
        "_first",
        "_joined",
        "_platform",
        "_rest",
        "_soul",
        "_soul_source",
    )

    def __init__(
        self,
        case: CaseBase,
        platform: Mapping[str, ToolDecl],
        fields: Iterable[CaseField],
        soul: Callable[[], Sequence[str]],
    ) -> None:
        self._case = case
        self._platform = platform
        self._fields = [f for f in fields if case.field(f.name) is not None]
        self._fields_text: tuple[list[str], list[str]] | None = None
        self._soul_source = soul
        self._soul: Sequence[str] | None = None
        self._first: list[str] | None = None
        self._rest: list[str] = []
        self._joined: dict[tuple[bool, bool, bool], str] = {}

    def _first_sources(self) -> Iterator[str]:
        """The first request's material: user messages, context, Tool descriptions, and what
        plug-in fields put in it (attached File content)."""
        case = self._case
        for message in case.input:
            if message.role != "assistant":
                yield from (p.text for p in message.parts if isinstance(p, TextPart))
        yield from strings(case.context or {})
        for name in case.platform_tools:
            decl = self._platform.get(name)
            if decl is not None and decl.description:
                yield decl.description
        yield from (t.description for t in case.tools if t.description)
        yield from self.plugin_text()[0]

    def _rest_sources(self) -> Iterator[str]:
        """Given later: assistant turns, scripted Tool results, later plug-in input."""
        case = self._case
        for message in case.input:
            if message.role == "assistant":
                yield from (p.text for p in message.parts if isinstance(p, TextPart))
        for result in case.tool_results:
            yield from strings(result.output)
            yield from (s for s in (result.denied, result.error, result.invalid_arguments) if s)
        yield from self.plugin_text()[1]

    def plugin_text(self) -> tuple[list[str], list[str]]:
        """What the Case's plug-in fields give: in the first request, and later. Each text
        function is called once, guarded: one that raises is a
        :class:`~eval_core._util.guard.PluginFault` naming its plug-in and line."""
        if self._fields_text is None:
            first: list[str] = []
            rest: list[str] = []
            for case_field in self._fields:
                value = self._case.field(case_field.name)
                name = json_name(case_field.name)
                if case_field.first_request_text is not None:
                    what = f"first_request_text of the Case field {name!r}"
                    first.extend(
                        collect(case_field.origin, what, case_field.first_request_text, value)
                    )
                if case_field.given_text is not None:
                    what = f"given_text of the Case field {name!r}"
                    rest.extend(collect(case_field.origin, what, case_field.given_text, value))
            self._fields_text = (first, rest)
        return self._fields_text

    def _pool(self, first_only: bool) -> list[str]:
        if self._first is None:
            self._first = list(self._first_sources())
            self._rest = list(self._rest_sources())
        return self._first if first_only else self._first + self._rest

    def _hay(self, first_only: bool, casefold: bool, collapse: bool) -> str:
        key = (first_only, casefold, collapse)
        hay = self._joined.get(key)
        if hay is None:
            pool = self._pool(first_only)
            hay = "\0".join(_fold(s) for s in pool) if casefold else "\0".join(pool)
            if collapse:
                hay = _collapse(hay)
            self._joined[key] = hay
        return hay

    def _souls(self) -> Sequence[str]:
        if self._soul is None:
            self._soul = self._soul_source()
        return self._soul

    def _found_directly(self, needle: str, fold: bool, first_only: bool) -> bool:
        sources = self._first_sources()
        if not first_only:
            sources = itertools.chain(sources, self._rest_sources())
        if fold:
            return any(needle in s.casefold() for s in sources)
        return any(needle in s for s in sources)

    def contains(self, needle: str, *, casefold: bool, first_request: bool = False) -> bool:
        fold = casefold and not first_request
        needle = needle.casefold() if fold else needle
        if self._first is None and self._found_directly(needle, fold, first_request):
            return True
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
        pool = [*self._pool(False), *self._souls()]
        return any(compiled.search(s) or compiled.search(_collapse(s)) for s in pool)


def given_text(
    case: CaseBase,
    soul_text: Callable[[], Sequence[str]],
    platform: Mapping[str, ToolDecl],
    fields: Iterable[CaseField],
) -> GivenText:
    """The Case's given text: its own material, read as it is needed, and (lazily) the Soul's.

    A plug-in field's text function that raises is a :class:`~eval_core._util.guard.PluginFault`,
    raised by :meth:`GivenText.plugin_text` (the loader asks it first, so a fault is a
    refusal whichever source a needle is found in)."""
    return GivenText(case, platform, fields, soul_text)


def grounded_text(spec: KindSpec, expectation: object) -> str | None:
    """The text an Expectation must find in what the model was given, or ``None``: its kind
    grounds nothing, the text is empty, or the Case gives a waivable kind an ``ungrounded``
    reason."""
    grounding = spec.grounding
    if grounding is None:
        return None
    text = getattr(expectation, grounding.field, None)
    if not isinstance(text, str) or not text:
        return None
    if grounding.waivable and getattr(expectation, "ungrounded", None):
        return None
    return text


def ungrounded(given: GivenText, spec: KindSpec, text: str) -> tuple[str, str] | None:
    """Where (the JSON path under the Expectation) and why ``text`` is not grounded, or
    ``None`` when it is."""
    grounding = spec.grounding
    assert grounding is not None
    if grounding.regex:
        ok = given.matches(text)
    else:
        ok = given.contains(
            text,
            casefold=spec.text_compare == "casefold",
            first_request=grounding.scope == "first_request",
        )
    if ok:
        return None
    first = grounding.scope == "first_request"
    where = "the first request" if first else "what the model was given"
    waiver = " or give an `ungrounded` reason" if grounding.waivable else ""
    return (
        f".{json_name(grounding.field)}",
        f"{text!r} is not grounded in {where} (context, input, Tool results, File "
        f"content, Tool descriptions){waiver}",
    )
