"""What every kind must hold, as hypothesis properties: the contract, checked rather than hoped.

For arbitrary valid Expectations of a kind and arbitrary Evidence: the scorer returns a Verdict
with a non-empty ``detail`` and never raises (a :class:`~eval_core._case.kinds.NoVerdict` is
allowed:
it is the one sanctioned way out); nothing observed never passes; ``check``, ``seam`` and
``guard_gate`` never raise and return what they promise; an Expectation survives a JSON round
trip (kinds are data); and the kind's schema is deterministic and, with a snapshot, unchanged.

Strategies are derived from the types themselves (:func:`strategy_for`, through
``msgspec.inspect``), honouring msgspec constraints; a test can override any field's strategy
and name the typed records its scorers read, so generated Evidence holds them.
``eval plugins --check`` runs the same properties over every installed kind, with few examples
and a fixed seed; :func:`eval_core._kit.testing.assert_kind_conforms` runs them in a plug-in's
tests.
"""

from __future__ import annotations

import datetime
import enum
import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import msgspec.inspect as mi
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._case.case import CaseBase, Message, TextStep
from eval_core._case.evidence import (
    Denial,
    Event,
    Evidence,
    GuardDecision,
    ModelRequest,
    Testimony,
    ToolCall,
    ToolResult,
    Usage,
)
from eval_core._case.kinds import Expectation, KindSpec, NoVerdict, Verdict
from eval_core._case.witness import TESTIMONY, WITNESSES
from eval_core._plugins.plugins import PluginSet, structural

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
    )
    events = st.builds(
        Event,
        turn_index=st.integers(min_value=1, max_value=3),
        seq=st.integers(min_value=0, max_value=5),
        type=texts,
        payload=json_values,
    )
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
        usage=st.just(Usage()),
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


def holding_case(expectation: Expectation, tier: str = "l2") -> CaseBase:
    """A small Case holding one Expectation, for ``check``: what a loader hands it."""
    return CaseBase(
        id="conformance",
        tier="l3" if tier == "l3" else "l2",
        agent="assistant",
        input=[Message(role="user", content="Hello.")],
        script=[TextStep(text="Hello.")],
        expect=[expectation],
    )


def _settings(examples: int, derandomize: bool, parent: settings | None = None) -> settings:
    return settings(
        parent,
        max_examples=examples,
        derandomize=derandomize,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


def evidence_pool(size: int, records: Sequence[type] = ()) -> list[Evidence]:
    """``size`` arbitrary Evidence drawn once with a fixed seed, for checking many kinds
    cheaply (``eval plugins --check``): each kind's Expectations meet all of them."""
    pool: list[Evidence] = []

    @_settings(size, derandomize=True)
    @given(evidence_strategy(records))
    def draw(evidence: Evidence) -> None:
        pool.append(evidence)

    draw()
    return pool


def properties_hold(
    spec: KindSpec,
    *,
    examples: int = 100,
    fields: Mapping[str, SearchStrategy[Any]] | None = None,
    records: Sequence[type] = (),
    derandomize: bool = False,
    pool: Sequence[Evidence] | None = None,
    hypothesis_settings: settings | None = None,
) -> list[str]:
    """Every property this module names, for one kind: the problems found (with
    hypothesis's falsifying example), or ``[]``. With a ``pool``, each generated Expectation
    meets every Evidence of the pool instead of one drawn with it (cheaper, shrinks less)."""
    tier = "l2" if "l2" in spec.tiers else "l3"
    run = _settings(examples, derandomize, hypothesis_settings)
    if pool is None:

        @run
        @given(expectation_strategy(spec, fields), evidence_strategy(records))
        def contract(expectation: Expectation, evidence: Evidence) -> None:
            _score_holds(spec, expectation, evidence)
            _rest_holds(spec, expectation, evidence, tier)

    else:

        @run
        @given(expectation_strategy(spec, fields))
        def contract(expectation: Expectation) -> None:
            for evidence in pool:
                _score_holds(spec, expectation, evidence)
                _rest_holds(spec, expectation, evidence, tier)

    try:
        contract()
    except Exception as exc:
        notes = "".join(f"\n    {n}" for n in getattr(exc, "__notes__", ()))
        return [f"kind {spec.name!r}: {type(exc).__name__}: {exc}{notes}"]
    return []


class ContractBroken(AssertionError):  # noqa: N818 - it names an outcome
    """A property of the plug-in contract does not hold (the message says which)."""


def _score_holds(spec: KindSpec, expectation: Expectation, evidence: Evidence) -> None:
    try:
        verdict = spec.scorer(expectation, evidence)
    except NoVerdict:
        return
    _verdict_holds(spec, verdict)
    empty = Evidence(tier=evidence.tier)
    try:
        nothing = spec.scorer(expectation, empty)
    except NoVerdict:
        return
    _verdict_holds(spec, nothing)
    if nothing.passed:
        raise ContractBroken(
            f"the scorer passed with nothing observed ({nothing.detail!r}): missing evidence "
            "must fail with a reason"
        )
    _witness_holds(spec, expectation, evidence)


def _witness_holds(spec: KindSpec, expectation: Expectation, evidence: Evidence) -> None:
    """The kind names its witness, and one that is not the runtime's own record never passes
    on that record alone: what a runtime says it did is not what it did."""
    if spec.witness is None:
        raise ContractBroken(
            "the kind declares no witness: say which one its scorer reads (KindSpec(witness="
            f"...), one of {', '.join(WITNESSES)})"
        )
    if spec.witness == TESTIMONY:
        return
    said = Evidence(
        tier=evidence.tier,
        events=evidence.events,
        testimony=evidence.testimony,
        tool_results=evidence.tool_results,
        denials=evidence.denials,
        guard_decisions=evidence.guard_decisions,
    )
    try:
        verdict = spec.scorer(expectation, said)
    except NoVerdict:
        return
    _verdict_holds(spec, verdict)
    if verdict.passed:
        raise ContractBroken(
            f"the scorer passed on the runtime's own record alone ({verdict.detail!r}), yet "
            f"declares the witness {spec.witness!r}: a kind that asserts what happened reads "
            "a witness the runtime does not control (or declares witness='events')"
        )


def _verdict_holds(spec: KindSpec, verdict: object) -> None:
    if not isinstance(verdict, Verdict) or not isinstance(verdict.passed, bool):
        raise ContractBroken(f"the scorer returned {verdict!r}, not a Verdict")
    if not isinstance(verdict.detail, str) or not verdict.detail.strip():
        raise ContractBroken("the scorer returned an empty detail: a verdict always says why")


def _rest_holds(spec: KindSpec, expectation: Expectation, evidence: Evidence, tier: str) -> None:
    if spec.check is not None:
        for found in spec.check(expectation, holding_case(expectation, tier)) or ():
            suffix, reason = found
            if not isinstance(suffix, str) or not (suffix == "" or suffix[0] in ".["):
                raise ContractBroken(f"check returned the path suffix {suffix!r}: '' or .field")
            if not isinstance(reason, str) or not reason.strip():
                raise ContractBroken(f"check returned an empty reason at {suffix!r}")
    if spec.seam is not None and not isinstance(spec.seam(expectation, evidence), bool):
        raise ContractBroken("the seam returned something other than a bool")
    if spec.guard_gate is not None and not isinstance(spec.guard_gate(expectation), bool):
        raise ContractBroken("the guard gate returned something other than a bool")
    again = msgspec.convert(msgspec.to_builtins(expectation), spec.struct)
    if again != expectation:
        raise ContractBroken(f"{expectation!r} does not survive a JSON round trip: kinds are data")


def schema_of(spec: KindSpec) -> dict[str, Any]:
    """The kind's schema as the lock fingerprints it: structure only, no prose."""
    found: dict[str, Any] = structural(msgspec.json.schema(spec.struct))
    return found


def schema_problems(spec: KindSpec, snapshot: Path | None = None) -> list[str]:
    """The schema is deterministic, and equal to ``snapshot`` (written when missing, or when
    ``EVAL_SNAPSHOT_UPDATE=1``)."""
    first, second = schema_of(spec), schema_of(spec)
    if first != second:
        return [f"kind {spec.name!r}: its schema is not deterministic"]
    if snapshot is None:
        return []
    text = msgspec.json.format(msgspec.json.encode(first, order="sorted"), indent=2) + b"\n"
    if not snapshot.exists() or os.environ.get("EVAL_SNAPSHOT_UPDATE") == "1":
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_bytes(text)
        return []
    if snapshot.read_bytes() != text:
        return [
            f"kind {spec.name!r}: its schema differs from the snapshot {snapshot}: a Case "
            "written for it may no longer decode; if that is meant, bump the distribution's "
            "version, run `eval lock`, and update the snapshot (EVAL_SNAPSHOT_UPDATE=1)"
        ]
    return []


def naming_problems(spec: KindSpec, distribution: str) -> Iterable[str]:
    """The naming rule: a third party's kind starts with its distribution's prefix."""
    prefix = distribution.split("-", maxsplit=1)[0].replace(".", "_").lower() + "_"
    if distribution.startswith("eval-") or spec.name.startswith(prefix):
        return []
    return [
        f"kind {spec.name!r} of {distribution} does not start with {prefix!r}: name a third "
        "party's kinds after its distribution, so two families never claim one name"
    ]


def field_problems(
    name: str, type_: Any, given_text: Any, first_text: Any, *, examples: int, derandomize: bool
) -> list[str]:
    """A Case field's text functions never raise and yield strings, for arbitrary values."""
    pairs = (("given_text", given_text), ("first_request_text", first_text))
    functions = list(pairs)
    functions = [(label, f) for label, f in functions if f is not None]
    if not functions:
        return []

    @_settings(examples, derandomize)
    @given(strategy_for(type_))
    def total(value: Any) -> None:
        for label, function in functions:
            for text in function(value) or ():
                if not isinstance(text, str):
                    raise ContractBroken(f"{label} yielded {text!r}, not a string")

    try:
        total()
    except Exception as exc:
        notes = "".join(f"\n    {n}" for n in getattr(exc, "__notes__", ()))
        return [f"Case field {name!r}: {type(exc).__name__}: {exc}{notes}"]
    return []


def check_installed(
    plugins: PluginSet, *, examples: int = 10, locked: Mapping[str, str] | None = None
) -> tuple[list[str], int]:
    """``eval plugins --check``: the contract's properties over every installed kind and Case
    field, few examples and a fixed seed (fast, repeatable). The report's lines, and how many
    problems (a note, such as the naming rule or a schema that moved since eval.lock, is not
    a problem)."""
    from eval_core._case.case import json_name
    from eval_core._plugins.plugins import field_schema_hash, kind_schema_hash

    lines: list[str] = []
    problems = 0
    pool = evidence_pool(max(10, examples * 3))
    for info in plugins.plugins:
        if not info.kinds and not info.fields:
            continue
        lines.append(f"{info.distribution} {info.version}  [{info.entry_point}]  code {info.code}")
        for kind in info.kinds:
            spec = plugins.kinds[kind]
            found = properties_hold(spec, examples=examples, derandomize=True, pool=pool)
            found += schema_problems(spec)
            notes = list(naming_problems(spec, info.distribution))
            pinned = (locked or {}).get(kind)
            if pinned is not None and pinned != kind_schema_hash(spec):
                notes.append(f"kind {kind!r}: its schema moved since eval.lock")
            problems += len(found)
            lines.append(f"    {'ok  ' if not found else 'FAIL'}  kind   {kind}")
            lines.extend(f"          {line}" for p in found for line in p.splitlines())
            lines.extend(f"          note: {n}" for n in notes)
        for name in info.fields:
            case_field = plugins.fields[name]
            found = field_problems(
                json_name(name),
                case_field.type,
                case_field.given_text,
                case_field.first_request_text,
                examples=examples,
                derandomize=True,
            )
            pinned = (locked or {}).get(json_name(name))
            notes = []
            if pinned is not None and pinned != field_schema_hash(case_field):
                notes.append(f"Case field {json_name(name)!r}: its schema moved since eval.lock")
            problems += len(found)
            lines.append(f"    {'ok  ' if not found else 'FAIL'}  field  {json_name(name)}")
            lines.extend(f"          {line}" for p in found for line in p.splitlines())
            lines.extend(f"          note: {n}" for n in notes)
    return lines, problems
