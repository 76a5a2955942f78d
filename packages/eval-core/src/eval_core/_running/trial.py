"""A Trial: one Case run once against one model, and what became of it."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import Concatenate, Literal, ParamSpec, TypeAlias

import msgspec
from msgspec.structs import replace

from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence, Usage
from eval_core._case.kinds import Expectation, KindSpec
from eval_core._case.witness import WitnessCheck, contradictions
from eval_core._plugins.fixtures import (
    FixtureError,
    OwnedFixture,
    SweepResources,
    run_with_fixtures,
)
from eval_core._plugins.host import Binding, Host, ModelError, ModelSession
from eval_core._running.drift import drift, watched
from eval_core._running.errored import ended_harness, origin, vendor_detail
from eval_core._running.reported import misshapen
from eval_core._running.scoring import ExpectationResult, ScorerError, score
from eval_core._util.guard import PluginFault

Outcome = Literal["passed", "failed", "errored", "unexercised"]


class TrialResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, rename="camel"):
    """One Trial's record, as the Scorecard and the trial log keep it."""

    case_id: str
    trial: int
    outcome: Outcome
    expectations: list[ExpectationResult] = msgspec.field(default_factory=list)
    loop_status: str | None = None
    loop_reason: str | None = None
    output: str | None = None
    error: str | None = None
    unexercised: str | None = None
    contradictions: list[str] = msgspec.field(default_factory=list)
    notes: tuple[str, ...] = ()
    """What the Trial says besides its verdict, which it does not change: a recorded script
    that drifted from what the runtime shows the model now (:mod:`eval_core._running.drift`)."""
    guarded: bool = False
    vacuous: bool = False
    probabilistic: bool = False
    retries: int = 0
    model_calls: int = 0
    model_version: str | None = None
    usage: Usage = msgspec.field(default_factory=Usage)
    duration_ms: float = 0.0
    dropped: dict[str, int] | None = None
    """Third-party log records (the MCP SDK's, httpx's, anyio's, an orphaned task's) the Host
    counted and kept off stderr while this Trial ran, by logger (:func:`noise_of`)."""

    @property
    def scoreable(self) -> bool:
        """A verdict about the system a Baseline can compare: not errored, not vacuous, and
        not a rate (a probabilistic Trial is reported by its plug-in's section instead)."""
        return self.outcome in ("passed", "failed") and not self.vacuous and not self.probabilistic


def _is_model_failure(reason: str | None) -> bool:
    return reason is not None and (reason.startswith("model_") or reason == "empty_model_output")


def noise_of(host: Host) -> dict[str, int]:
    """What the Host's optional ``noise()`` says it has kept off stderr so far in this process
    (records by logger), or nothing: a Host without it, or one that fails, drops nothing."""
    method = getattr(host, "noise", None)
    if method is None:
        return {}
    try:
        found = method()
        if not found or not isinstance(found, Mapping):
            return {}  # nothing dropped yet (the common case): no copy made
        return {str(k): int(v) for k, v in found.items()}
    except Exception:
        return {}


P = ParamSpec("P")
_Run: TypeAlias = Callable[Concatenate[CaseBase, int, Host, P], "TrialResult"]


def _counts_dropped(run: _Run[P]) -> _Run[P]:
    """``run`` with what the Host kept off stderr meanwhile as the Trial's ``dropped``."""

    @wraps(run)
    def counted(
        case: CaseBase, trial: int, host: Host, /, *args: P.args, **kw: P.kwargs
    ) -> TrialResult:
        before = noise_of(host)
        result = run(case, trial, host, *args, **kw)
        after = noise_of(host)
        if after == before:  # nothing dropped meanwhile (the common case)
            return result
        dropped = {
            k: n - before.get(k, 0) for k, n in sorted(after.items()) if n > before.get(k, 0)
        }
        return replace(result, dropped=dropped) if dropped else result

    return counted


@_counts_dropped
def run_trial(
    case: CaseBase,
    trial: int,
    host: Host,
    /,
    binding: Binding,
    kinds: Mapping[str, KindSpec],
    fixtures: Sequence[OwnedFixture] = (),
    shared: SweepResources | None = None,
    observe: Callable[[Evidence], None] | None = None,
    checks: Sequence[WitnessCheck] = (),
) -> TrialResult:
    """Run the Case through the Host, its fixtures around it, and score it.

    Never raises for a Trial's own failure. ``shared`` holds the Sweep's shared fixture
    resources; without it they live for this one Trial. ``observe`` is handed the Evidence
    once it is read back (the trial log records it as the Trial's transcript). ``checks``
    are the installed families' witness checks (the core's own always run). What the Host kept
    off stderr meanwhile is the Trial's ``dropped``.
    """
    started = time.perf_counter()
    raw = binding.session(case)
    session = watched(raw)  # its own attributes read from ``raw``: no proxy in between
    own = shared is None
    resources = SweepResources() if shared is None else shared

    def elapsed() -> float:
        return round((time.perf_counter() - started) * 1000, 3)

    try:
        scope = host.open_trial(case, session, trial)

        def as_sent(evidence: Evidence) -> None:
            """The binding's witness, whatever the Host reported: what was put on the wire."""
            requests = list(raw.sent)
            evidence.model_requests = requests
            evidence.model_calls = raw.calls
            evidence.model_usage = getattr(raw, "handed", None)
            evidence.model_answered_as = raw.model_version or getattr(raw, "model_id", None)
            evidence.shown = list(session.shown)
            evidence.answers = list(session.answers)
            evidence.system_prompt = requests[-1].system if requests else None
            replied = getattr(raw, "replied", None)
            evidence.tool_batches = [list(b) for b in replied] if replied is not None else None

        try:
            evidence = run_with_fixtures(
                case, trial, scope, host.name, fixtures, resources, as_sent
            )
        finally:
            scope.close()
    except ModelError as exc:
        return _errored(case.id, trial, raw, str(exc), elapsed())
    except FixtureError as exc:
        return _errored(case.id, trial, raw, str(exc), elapsed())
    except Exception as exc:
        return _errored(case.id, trial, raw, f"{type(exc).__name__}: {exc}{origin(exc)}", elapsed())
    except KeyboardInterrupt:
        raise  # the user's Ctrl-C (or SIGTERM) ends the Sweep, partial
    except BaseException as exc:  # the system under test's sys.exit or its own BaseException
        return _errored(case.id, trial, raw, ended_harness(exc), elapsed())
    finally:
        if own:
            resources.close()
    wrong = misshapen(evidence)
    if wrong is not None:
        return _errored(case.id, trial, raw, f"the Host {host.name!r} reported {wrong}", elapsed())
    if observe is not None:
        observe(evidence)
    base = TrialResult(
        case_id=case.id,
        trial=trial,
        outcome="errored",
        loop_status=evidence.loop_status,
        loop_reason=evidence.loop_reason,
        output=evidence.output_text,
        guarded=bool(evidence.guards_fired()),
        model_calls=raw.calls,
        usage=raw.usage,
        retries=raw.retries,
        model_version=raw.model_version,
    )
    decided = decide(base, evidence, case.expect, kinds, checks)
    notes = tuple(drift(case.recorded, evidence)) if binding.scripted and case.recorded else ()
    return replace(
        decided, error=vendor_detail(decided.error, raw), notes=notes, duration_ms=elapsed()
    )


def decide(
    base: TrialResult,
    evidence: Evidence,
    expect: Sequence[Expectation],
    kinds: Mapping[str, KindSpec],
    checks: Sequence[WitnessCheck] = (),
) -> TrialResult:
    """``base`` with its outcome decided from the Evidence: the one rule a Trial is judged by,
    as it runs and when a saved Sweep is re-scored (``eval rescore``).

    A model failure the Host did not inject is errored, never scored; a raising scorer or
    witness check errors the Trial; otherwise every Expectation's verdict, and whether the
    Trial was exercised. A contradiction of the runtime's record by a witness fails the Trial
    on its own (:mod:`eval_core._case.witness`), whatever the Expectations say.
    """
    if (
        evidence.loop_status == "failed"
        and _is_model_failure(evidence.loop_reason)
        and evidence.injected_fault is None
    ):
        reason = evidence.loop_reason
        detailed = base.error is not None and base.error.startswith(f"{reason}: ")
        error = base.error if detailed else reason  # re-scored: kept whole
        return _cleared(base, error, [])
    try:
        results, unexercised = score(expect, evidence, kinds)
    except ScorerError as exc:  # every verdict kept, the faulty Expectation marked
        return _cleared(base, str(exc), exc.results)
    try:
        contradicted = contradictions(evidence, checks)
    except PluginFault as exc:
        return _cleared(base, str(exc), results)
    all_passed = all(r.passed for r in results)
    outcome: Outcome = (
        "failed"
        if contradicted
        else "passed"
        if all_passed
        else "unexercised"
        if unexercised is not None
        else "failed"
    )
    return replace(  # every field _cleared() sets, set here: one copy of the record
        base,
        outcome=outcome,
        error=None,
        expectations=results,
        unexercised=None if contradicted else unexercised,
        contradictions=contradicted,
        vacuous=all_passed and not results and not contradicted,
    )


def _cleared(
    base: TrialResult, error: str | None, expectations: list[ExpectationResult]
) -> TrialResult:
    """``base`` errored with ``error``: no verdict of its own, whatever it held before."""
    return replace(
        base,
        outcome="errored",
        error=error,
        expectations=expectations,
        unexercised=None,
        vacuous=False,
        contradictions=[],
    )


def _errored(
    case_id: str, trial: int, session: ModelSession, error: str, duration_ms: float
) -> TrialResult:
    return TrialResult(
        case_id=case_id,
        trial=trial,
        outcome="errored",
        error=error,
        model_calls=session.calls,
        usage=session.usage,
        retries=session.retries,
        duration_ms=duration_ms,
    )
