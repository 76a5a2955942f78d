"""Hypothesis strategies derived from the types themselves: values, Expectations, Evidence.

:func:`strategy_for` walks a type through ``msgspec.inspect``, honouring msgspec's constraints;
a test can override any Struct field's strategy, and name the typed records its scorers read so
generated Evidence holds them. The conformance properties (:mod:`eval_kit.conformance`)
draw from these.
"""

from __future__ import annotations

import datetime
import enum
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
import msgspec.inspect as mi
from hypothesis import strategies as st

from eval_core.hosts import RepliedCall
from eval_core.kinds import (
    Denial,
    Event,
    Evidence,
    Expectation,
    GuardDecision,
    KindSpec,
    ModelRequest,
    Testimony,
    ToolCall,
    ToolResult,
    Usage,
)

SearchStrategy = st.SearchStrategy

texts = st.text(max_size=20) | st.sampled_from(["", " ", "{", '{"a": 1}', "ok", "$", "a.b"])
json_values: SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | texts,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
names = st.sampled_from(["lookup_ticket", "web_fetch", "send_message", "", "x"])


def _maybe(strategy: SearchStrategy[Any]) -> SearchStrategy[Any]:
    return st.none() | strategy


def strategy_for(kind: Any, overrides: Mapping[str, SearchStrategy[Any]] | None = None) -> Any:
    """A hypothesis strategy for values of a type (a Python type or a ``msgspec.inspect``
    type), honouring msgspec's constraints; ``overrides`` replace a Struct field's strategy,
    by its Python name."""
    info = kind if isinstance(kind, mi.Type) else mi.type_info(kind)
    return _strategy(info, dict(overrides or {}))


def _strategy(t: mi.Type, overrides: dict[str, SearchStrategy[Any]]) -> Any:
    if isinstance(t, mi.Metadata):
        return _strategy(t.type, overrides)
    if isinstance(t, mi.AnyType):
        return json_values
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.IntType):
        low = t.ge if t.ge is not None else (t.gt + 1 if t.gt is not None else -3)
        high = t.le if t.le is not None else (t.lt - 1 if t.lt is not None else low + 20)
        return st.integers(min_value=low, max_value=max(low, high))
    if isinstance(t, mi.FloatType):
        return st.floats(
            min_value=t.ge if t.ge is not None else t.gt,
            max_value=t.le if t.le is not None else t.lt,
            exclude_min=t.gt is not None and t.ge is None,
            exclude_max=t.lt is not None and t.le is None,
            allow_nan=False,
            allow_infinity=False,
        )
    if isinstance(t, mi.StrType):
        if t.pattern is not None:
            found: SearchStrategy[str] = st.from_regex(t.pattern)
        else:
            found = st.text(min_size=t.min_length or 0, max_size=max(t.min_length or 0, 20))
        return found.filter(lambda s: _within(len(s), t.min_length, t.max_length))
    if isinstance(t, mi.BytesType | mi.ByteArrayType | mi.MemoryViewType):
        return st.binary(max_size=16)
    if isinstance(t, mi.ListType | mi.VarTupleType | mi.SetType | mi.FrozenSetType):
        low = t.min_length or 0
        high = max(low, 3)
        item = _strategy(t.item_type, {})
        if isinstance(t, mi.SetType | mi.FrozenSetType):
            made = st.frozensets(item, min_size=low, max_size=high)
            return made.map(set if isinstance(t, mi.SetType) else frozenset)
        listed = st.lists(item, min_size=low, max_size=high)
        return listed.map(tuple if isinstance(t, mi.VarTupleType) else list)
    if isinstance(t, mi.TupleType):
        return st.tuples(*(_strategy(i, {}) for i in t.item_types))
    if isinstance(t, mi.DictType):
        return st.dictionaries(_strategy(t.key_type, {}), _strategy(t.value_type, {}), max_size=3)
    if isinstance(t, mi.LiteralType):
        return st.sampled_from(list(t.values))
    if isinstance(t, mi.EnumType):
        return st.sampled_from(list(t.cls))
    if isinstance(t, mi.UnionType):
        return st.one_of([_strategy(member, {}) for member in t.types])
    if isinstance(t, mi.StructType | mi.DataclassType):
        fields = {
            f.name: overrides[f.name] if f.name in overrides else _strategy(f.type, {})
            for f in t.fields
        }
        return st.builds(t.cls, **fields)
    if isinstance(t, mi.DateTimeType):
        return st.datetimes(timezones=st.just(datetime.UTC) | st.none())
    if isinstance(t, mi.CustomType) and isinstance(t.cls, type) and issubclass(t.cls, enum.Enum):
        return st.sampled_from(list(t.cls))
    return st.from_type(getattr(t, "cls", object)) if hasattr(t, "cls") else json_values


def _within(length: int, low: int | None, high: int | None) -> bool:
    return (low is None or length >= low) and (high is None or length <= high)


def evidence_strategy(records: Sequence[type] = ()) -> SearchStrategy[Evidence]:
    """Arbitrary Evidence: every field observed or not (``None``), and each of ``records``
    (a family's typed read-back) read back or not."""
    return _evidence(tuple(records))


@functools.cache
def _evidence(records: tuple[type, ...]) -> SearchStrategy[Evidence]:
    calls = st.builds(ToolCall, call_id=texts, name=names, arguments=json_values)
    results = st.builds(
        ToolResult,
        call_id=texts,
        name=names,
        arguments=json_values,
        status=st.sampled_from(["succeeded", "failed", "denied", "invalid_arguments"]),
        output=json_values,
        reason=_maybe(texts),
    )
    denials = st.builds(
        Denial, call_id=texts, name=names, arguments=json_values, reason=texts, source=texts
    )
    decisions = st.builds(
        GuardDecision,
        stage=st.sampled_from(["input", "tool_call", "tool_result", "output"]),
        guard=st.sampled_from(["tool_blocklist", "content_filter", "prompt_injection", "x"]),
        blocked=st.booleans(),
        detail=texts,
    )
    requests = st.builds(
        ModelRequest,
        system=texts,
        messages=st.lists(
            st.fixed_dictionaries({"role": st.just("user"), "content": texts}), max_size=2
        ),
        tools=st.lists(names, max_size=2),
        replied=st.none()
        | st.lists(
            st.builds(RepliedCall, call_id=names, name=names, unoffered=st.booleans()),
            max_size=2,
        ),
    )
    events = st.builds(
        Event,
        turn_index=st.integers(min_value=1, max_value=3),
        seq=st.integers(min_value=0, max_value=5),
        type=texts,
        payload=json_values,
    )
    counts = st.integers(min_value=0, max_value=3)
    tokens = st.builds(Usage, input_tokens=counts, output_tokens=counts)
    base = st.builds(
        Evidence,
        tier=st.sampled_from(["l2", "l3"]),
        system_prompt=_maybe(texts),
        model_requests=_maybe(st.lists(requests, max_size=2)),
        model_calls=_maybe(st.integers(min_value=0, max_value=4)),
        output_text=_maybe(texts),
        output_structured=json_values,
        output_kind=_maybe(st.sampled_from(["text", "structured", "tool_calls", "none"])),
        tool_calls=_maybe(st.lists(calls, max_size=3)),
        tool_batches=_maybe(st.lists(st.lists(texts, max_size=3), max_size=2)),
        tool_results=_maybe(st.lists(results, max_size=3)),
        denials=_maybe(st.lists(denials, max_size=2)),
        guard_decisions=_maybe(st.lists(decisions, max_size=3)),
        loop_status=_maybe(st.sampled_from(["completed", "failed", "iteration_limit", "waiting"])),
        loop_reason=_maybe(texts),
        usage=tokens,
        model_usage=_maybe(tokens),
        events=_maybe(st.lists(events, max_size=3)),
        testimony=_maybe(
            st.builds(
                Testimony,
                system_prompt=_maybe(texts),
                model_calls=_maybe(st.integers(min_value=0, max_value=4)),
                tool_calls=_maybe(st.lists(calls, max_size=3)),
            )
        ),
    )
    if not records:
        return base
    found = st.tuples(base, *(_maybe(strategy_for(r)) for r in records))
    return found.map(_with_records)


def _with_records(drawn: tuple[Any, ...]) -> Evidence:
    evidence: Evidence = drawn[0]
    for record in drawn[1:]:
        if record is not None:
            evidence.put(record)
    return evidence


def expectation_strategy(
    spec: KindSpec, fields: Mapping[str, SearchStrategy[Any]] | None = None
) -> SearchStrategy[Expectation]:
    """Valid Expectations of a kind: generated from its Struct, kept only when they decode
    (so a constraint msgspec enforces holds), with ``fields`` overriding by Python name."""
    return strategy_for(spec.struct, fields).filter(lambda e: _decodes(spec, e))  # type: ignore[no-any-return]


def _decodes(spec: KindSpec, expectation: Expectation) -> bool:
    try:
        msgspec.convert(msgspec.to_builtins(expectation), spec.struct)
    except (msgspec.ValidationError, TypeError, ValueError):
        return False
    return True
