"""Scoring one Trial: every Expectation's verdict, and whether the Trial was exercised at all.

A Trial is *unexercised* (UNEX) rather than failed when its failures say nothing about the
system: the guard it asserts was never reached because the model declined first, or the seam
Tool its Expectations depend on was never called. Both are decided from kind metadata.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from eval_core.evidence import Evidence
from eval_core.kinds import Expectation, KindSpec, NoVerdict, Verdict


class ExpectationResult(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    passed: bool
    detail: str
    expectation: dict[str, Any]


class ScorerError(Exception):
    """A scorer raised: a harness fault that errors the Trial, never a verdict."""


def score(
    expectations: Sequence[Expectation], evidence: Evidence, kinds: Mapping[str, KindSpec]
) -> tuple[list[ExpectationResult], str | None]:
    """The verdict of each Expectation, and why the Trial is unexercised (or ``None``)."""
    results: list[ExpectationResult] = []
    failing: list[tuple[Expectation, KindSpec]] = []
    for expectation in expectations:
        spec = kinds[expectation.kind_name]
        try:
            verdict = spec.scorer(expectation, evidence)
        except NoVerdict as exc:
            raise ScorerError(f"{spec.name}: no verdict: {exc}") from exc
        except Exception as exc:
            raise ScorerError(
                f"the scorer of {spec.name} raised {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(verdict, Verdict):
            raise ScorerError(f"the scorer of {spec.name} returned {verdict!r}, not a Verdict")
        results.append(
            ExpectationResult(
                kind=spec.name,
                passed=verdict.passed,
                detail=verdict.detail,
                expectation=msgspec.to_builtins(expectation),
            )
        )
        if not verdict.passed:
            failing.append((expectation, spec))
    return results, unexercised(failing, evidence)


def unexercised(failing: Sequence[tuple[Expectation, KindSpec]], evidence: Evidence) -> str | None:
    if not failing:
        return None
    if not evidence.guards_fired() and all(
        spec.guard_gate is not None and spec.guard_gate(e) for e, spec in failing
    ):
        return "the guard was never reached: no guard fired and the model declined first"
    if any(spec.seam_independent for _, spec in failing):
        return None
    for expectation, spec in failing:
        if spec.seam is not None and not spec.seam(expectation, evidence):
            return f"the seam of {spec.name} was never exercised"
    return None
