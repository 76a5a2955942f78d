"""Scorer building blocks: the shapes every family's kinds share, each said once.

A kind is its Struct, one declaration and a few lines of scoring::

    @scorer
    def score(e: ToolCalled, ev: Evidence) -> Verdict:
        calls = need(ev.tool_calls, "tool calls not observed")  # nothing observed: a failure
        hit = ...  # the detail of what was found, or None
        return present(hit, f"{quoted(e.name)} was not called")  # absent(...) for the mirror

    KindSpec(struct=ToolCalled, scorer=score, witness="tool", **rules(name=TEXT))

- :func:`need` stops only on ``None``: an empty list is an observation; write
  ``need(found or None, why)`` where finding none is a failure too.
- A count compared is ``Verdict(actual == e.count, detail)``: one detail, pass or fail.
- :func:`rules` names fields as Python does (``turn_index``; JSON ``turnIndex``); an optional
  field left out (``None``) breaks no rule, and problems come in the order the fields are given.
- Where the evidence is: the kind declares its part (``evidence_at=Location.TOOL_CALLS``, or
  ``Location.record_of(MyRecord)``), and a scorer that knows exactly which one says so:
  ``present(hit, why, Location.call_at(call))``, ``failed(why, Location.request_at(i))``.
- Kinds that share metadata share it with ``functools.partial(KindSpec, tiers=L3, ...)``; one
  scorer serves a kind and its mirror as ``partial(score, present)`` / ``partial(score, absent)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, ParamSpec, Protocol, TypedDict, TypeVar

import msgspec

from eval_core._case.case import json_name
from eval_core._case.evidence import Location
from eval_core._case.json_form import CASE_JSON
from eval_core._case.kinds import Tier, ValueCheck, Verdict, failed, passed
from eval_core._util.checks import (
    DOT_PATH,
    NON_EMPTY,
    Problems,
    at_least,
    dot_path,
    non_empty,
    optional_reason,
    properties,
)
from eval_core._util.paths import deep_equal, render, resolve

T = TypeVar("T")
P = ParamSpec("P")

L2: frozenset[Tier] = frozenset({"l2"})
"""``tiers=L2``: a kind or field only the in-memory tier can observe."""
L3: frozenset[Tier] = frozenset({"l3"})
"""``tiers=L3``: a kind or field about what a durable Turn left in the database."""

BLOCK: Mapping[str, Any] = MappingProxyType(CASE_JSON)
"""A Case field's struct options, as the Case's own: ``class X(msgspec.Struct, **BLOCK)``."""


class _Unobserved(Exception):  # noqa: N818 - an outcome, caught by @scorer, never seen outside
    """What :func:`need` raises and :func:`scorer` turns into the failure it names."""


def need(value: T | None, why: str) -> T:
    """The witness, or the scorer fails with ``why``: nothing observed never passes."""
    if value is None:
        raise _Unobserved(why)
    return value


def scorer(function: Callable[P, Verdict]) -> Callable[P, Verdict]:
    """Makes the first :func:`need` that finds nothing the scorer's failure: it stays total."""

    @functools.wraps(function)
    def score(*args: P.args, **kwargs: P.kwargs) -> Verdict:
        try:
            return function(*args, **kwargs)
        except _Unobserved as missing:
            return failed(str(missing))

    return score


class Claim(Protocol):
    """:func:`present` or :func:`absent`, so that one scorer serves a kind and its mirror."""

    def __call__(
        self, found: str | None, otherwise: str, at: Location | None = None
    ) -> Verdict: ...


def present(found: str | None, otherwise: str, at: Location | None = None) -> Verdict:
    """Passes with what was found, else fails with ``otherwise``: ``*_contains``, ``*_called``.
    ``at``: where it was found (or looked for), when the scorer knows."""
    return failed(otherwise, at) if found is None else passed(found, at)


def absent(found: str | None, otherwise: str, at: Location | None = None) -> Verdict:
    """Fails with what was found, else passes with ``otherwise``: ``*_omits``, ``*_not_*``."""
    return passed(otherwise, at) if found is None else failed(found, at)


def first_equal(
    records: Iterable[T], read: Callable[[T], Any], path: str, value: Any
) -> tuple[T, Any] | None:
    """An ``*_equals`` hit: the first record whose ``read(record)`` holds ``value`` at ``path``."""
    for record in records:
        found, actual = resolve(read(record), path)
        if found and deep_equal(actual, value):
            return record, actual
    return None


def values_at(
    records: Iterable[T], read: Callable[[T], Any], path: str, label: Callable[[T], str]
) -> list[str]:
    """An ``*_equals`` miss says what it saw: ``label: value`` at ``path``, or ``(missing)``."""
    seen: list[str] = []
    for record in records:
        found, actual = resolve(read(record), path)
        seen.append(f"{label(record)}: {render(actual, 60) if found else '(missing)'}")
    return seen


class Rule(msgspec.Struct, frozen=True):
    """One field's rule said once: ``problems`` for the loader, ``schema`` for an editor."""

    schema: Mapping[str, Any]
    problems: Callable[[Any, str], Problems]


TEXT = Rule(NON_EMPTY, non_empty)
"""A string with something besides whitespace in it."""
PATH = Rule(DOT_PATH, dot_path)
"""A dot path that can resolve (``$``, or segments without an empty one)."""
REASON = Rule(NON_EMPTY, optional_reason)
"""An optional reason (``ungrounded``) that says something when present."""


def minimum(least: int, why: str = "") -> Rule:
    """An integer of at least ``least``; ``why``, a few words, joins the reason."""
    reason = f"must be an integer ≥ {least}" + (f" ({why})" if why else "")

    def problems(value: int, suffix: str) -> Problems:
        return [(suffix, reason)] if value < least else []

    return Rule(at_least(least), problems)


class Rules(TypedDict):
    """The two KindSpec fields :func:`rules` fills: ``KindSpec(..., **rules(...))``."""

    check: ValueCheck
    json_schema: Mapping[str, Any]


def rules(**fields: Rule) -> Rules:
    """A kind's value rules said once per field, as both its ``check`` and its ``json_schema``."""
    named = [(name, f".{json_name(name)}", rule) for name, rule in fields.items()]

    def check(expectation: Any, _case: object) -> Problems:
        found: Problems = []
        for name, suffix, rule in named:
            value = getattr(expectation, name)
            if value is not None:
                found += rule.problems(value, suffix)
        return found

    schema = properties(**{suffix[1:]: dict(rule.schema) for _, suffix, rule in named})
    return {"check": check, "json_schema": schema}
