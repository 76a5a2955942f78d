"""What every kind must hold, as hypothesis properties: the contract, checked rather than hoped.

For arbitrary valid Expectations of a kind and arbitrary Evidence: the scorer returns a Verdict
with a non-empty ``detail`` and never raises (a :class:`~eval_core.kinds.NoVerdict` is
allowed:
it is the one sanctioned way out); nothing observed never passes; ``check``, ``seam`` and
``guard_gate`` never raise and return what they promise; an Expectation survives a JSON round
trip (kinds are data); and the kind's schema is deterministic and, with a snapshot, unchanged.

Strategies are derived from the types themselves (:mod:`eval_kit.strategies`); a test can
override any field's strategy and name the typed records its scorers read, so generated Evidence
holds them.
``eval plugins --check`` runs the same properties over every installed kind, with few examples
and a fixed seed; :func:`eval_kit.testing.assert_kind_conforms` runs them in a plug-in's
tests.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings

from eval_core.commands import TESTIMONY, WITNESSES, PluginSet, structural_schema
from eval_core.kinds import (
    CaseBase,
    Evidence,
    Expectation,
    KindSpec,
    Message,
    NoVerdict,
    TextStep,
    Verdict,
)
from eval_kit.strategies import (
    SearchStrategy,
    evidence_strategy,
    expectation_strategy,
    strategy_for,
)

__all__ = [  # the strategies too, importable from here as before they moved
    "ContractBroken",
    "check_installed",
    "evidence_pool",
    "evidence_strategy",
    "expectation_strategy",
    "field_problems",
    "holding_case",
    "naming_problems",
    "properties_hold",
    "schema_of",
    "schema_problems",
    "strategy_for",
]


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

    return _problems(f"kind {spec.name!r}", contract)


def _problems(what: str, prove: Callable[[], None]) -> list[str]:
    """Run a property's test: ``[]`` when it holds, else one problem naming ``what``, with
    hypothesis's falsifying example."""
    try:
        prove()
    except Exception as exc:
        notes = "".join(f"\n    {n}" for n in getattr(exc, "__notes__", ()))
        return [f"{what}: {type(exc).__name__}: {exc}{notes}"]
    return []


class ContractBroken(AssertionError):  # noqa: N818 - it names an outcome
    """A property of the plug-in contract does not hold (the message says which)."""


def _scored(spec: KindSpec, expectation: Expectation, evidence: Evidence) -> Verdict | None:
    """The scorer's verdict, checked to be one, or ``None`` where the kind gives no verdict."""
    try:
        verdict = spec.scorer(expectation, evidence)
    except NoVerdict:
        return None
    _verdict_holds(spec, verdict)
    return verdict


def _score_holds(spec: KindSpec, expectation: Expectation, evidence: Evidence) -> None:
    if _scored(spec, expectation, evidence) is None:
        return
    nothing = _scored(spec, expectation, Evidence(tier=evidence.tier))
    if nothing is None:
        return
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
    verdict = _scored(spec, expectation, said)
    if verdict is not None and verdict.passed:
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
    found: dict[str, Any] = structural_schema(msgspec.json.schema(spec.struct))
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

    return _problems(f"Case field {name!r}", total)


def check_installed(
    plugins: PluginSet, *, examples: int = 10, locked: Mapping[str, str] | None = None
) -> tuple[list[str], int]:
    """``eval plugins --check``: the contract's properties over every installed kind and Case
    field, few examples and a fixed seed (fast, repeatable). The report's lines, and how many
    problems (a note, such as the naming rule or a schema that moved since eval.lock, is not
    a problem)."""
    from eval_core.kinds import json_name
    from eval_core.records import field_schema_hash, kind_schema_hash

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
            problems += _report(lines, f"kind   {kind}", found, notes)
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
            problems += _report(lines, f"field  {json_name(name)}", found, notes)
    return lines, problems


def _report(lines: list[str], what: str, found: list[str], notes: list[str]) -> int:
    """One kind's or Case field's lines (ok or FAIL, its problems, its notes): how many
    problems it has."""
    lines.append(f"    {'ok  ' if not found else 'FAIL'}  {what}")
    lines.extend(f"          {line}" for p in found for line in p.splitlines())
    lines.extend(f"          note: {n}" for n in notes)
    return len(found)
