"""Scoring one Trial: every Expectation's verdict, and whether the Trial was exercised at all.

A Trial is *unexercised* (UNEX) rather than failed when its failures say nothing about the
system: the guard it asserts was never reached because the model declined first, or the seam
Tool its Expectations depend on was never called. Both are decided from kind metadata.

Scorers, seams and guard gates are plug-in code, guarded (:mod:`eval_core._util.guard`): one that
raises, returns something other than a Verdict, or gives an empty ``detail`` errors the Trial
(never the Sweep) with a reason naming the plug-in, its version and the line; every other
Expectation keeps its verdict, and the faulty one is marked ``error``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from eval_core._case.evidence import Evidence, Location
from eval_core._case.kinds import Expectation, KindSpec, NoVerdict, Verdict
from eval_core._util.guard import PluginFault, broken, call, fault


class ExpectationResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One Expectation's verdict; ``error`` is set (and ``passed`` false) when it has none:
    its scorer raised or broke the contract, or could not reach a verdict (a Judge failure).
    ``at``: where its evidence is (the Verdict's own, else the part its kind declares)."""

    kind: str
    passed: bool
    detail: str
    expectation: dict[str, Any]
    error: bool = False
    at: Location | None = None


class ScorerError(Exception):
    """No verdict for the Trial: a harness or plug-in fault that errors it, never a verdict.

    ``results`` keeps every Expectation's outcome, the faulty ones marked ``error``."""

    def __init__(self, message: str, results: Sequence[ExpectationResult] = ()) -> None:
        super().__init__(message)
        self.results = list(results)


def score(
    expectations: Sequence[Expectation], evidence: Evidence, kinds: Mapping[str, KindSpec]
) -> tuple[list[ExpectationResult], str | None]:
    """The verdict of each Expectation, and why the Trial is unexercised (or ``None``).

    Raises :class:`ScorerError` (with every result) when a scorer, seam or guard gate failed.
    """
    results: list[ExpectationResult] = []
    failing: list[tuple[Expectation, KindSpec]] = []
    errors: list[str] = []
    for expectation in expectations:
        spec = kinds[expectation.kind_name]
        verdict, error = _verdict(spec, expectation, evidence)
        if error is not None:
            errors.append(error)
        results.append(
            ExpectationResult(
                kind=spec.name,
                passed=verdict.passed,
                detail=verdict.detail,
                expectation=msgspec.to_builtins(expectation),
                error=error is not None,
                at=verdict.at if isinstance(verdict.at, Location) else spec.evidence_at,
            )
        )
        if not verdict.passed and error is None:
            failing.append((expectation, spec))
    if errors:
        raise ScorerError("; ".join(errors), results)
    try:
        return results, unexercised(failing, evidence)
    except PluginFault as exc:
        raise ScorerError(str(exc), results) from exc


def _verdict(
    spec: KindSpec, expectation: Expectation, evidence: Evidence
) -> tuple[Verdict, str | None]:
    """The scorer's Verdict, or a failed stand-in and why there is none."""
    try:
        verdict = spec.scorer(expectation, evidence)
    except NoVerdict as exc:
        reason = f"{spec.name}: no verdict: {exc}"
        return Verdict(False, reason), reason
    except Exception as exc:
        reason = str(fault(spec.origin, _scorer_of(spec), exc, spec.scorer))
        return Verdict(False, reason), reason
    problem = None
    if not isinstance(verdict, Verdict) or not isinstance(verdict.passed, bool):
        problem = f"returned {verdict!r}, not a Verdict(passed: bool, detail: str)"
    elif not isinstance(verdict.detail, str) or not verdict.detail.strip():
        problem = "returned an empty detail: a verdict always says why"
    if problem is not None:
        reason = str(broken(spec.origin, _scorer_of(spec), problem, spec.scorer))
        return Verdict(False, reason), reason
    return verdict, None


def _scorer_of(spec: KindSpec) -> str:
    return f"the scorer of kind {spec.name!r}"


def unexercised(failing: Sequence[tuple[Expectation, KindSpec]], evidence: Evidence) -> str | None:
    """Why the failures say nothing about the system (or ``None``); a raising seam or guard
    gate is a :class:`~eval_core._util.guard.PluginFault`."""
    if not failing:
        return None
    if not evidence.guards_fired() and all(
        spec.guard_gate is not None and _bool(spec, "guard gate", spec.guard_gate, e)
        for e, spec in failing
    ):
        return "the guard was never reached: no guard fired and the model declined first"
    if any(spec.seam_independent for _, spec in failing):
        return None
    for expectation, spec in failing:
        if spec.seam is not None and not _bool(spec, "seam", spec.seam, expectation, evidence):
            return f"the seam of {spec.name} was never exercised"
    return None


def _bool(spec: KindSpec, what: str, function: Callable[..., Any], *args: Any) -> bool:
    label = f"the {what} of kind {spec.name!r}"
    found = call(spec.origin, label, function, *args)
    if not isinstance(found, bool):
        raise broken(spec.origin, label, f"returned {found!r}, not a bool", function)
    return found
