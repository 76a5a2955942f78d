"""A Sweep: a Corpus (or a selection) run against one model: one Trial after another, N at
once on threads (``--jobs N``), or on an executor (:mod:`eval_core._plugins.executor`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from msgspec.structs import replace

from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence
from eval_core._loading.corpus import Corpus
from eval_core._plugins.executor import Executor, Work, WorkerLost
from eval_core._plugins.fixtures import SweepResources
from eval_core._plugins.host import Binding, Host
from eval_core._plugins.plugin_set import PluginSet
from eval_core._running.in_flight import Finished, Remote, Threads, at_once, one_by_one
from eval_core._running.scorecard import Scorecard, made_safe, noise_floor
from eval_core._running.trial import TrialResult, run_trial
from eval_core._util import cache_use, collector
from eval_core._util.limits import MAX_PLANNED_TRIALS, MAX_REPEAT

if TYPE_CHECKING:
    pass


class SelectionError(Exception):
    """``--case`` named a Case the Corpus does not have, or the plan is over a limit."""


class StopSweep(Exception):  # noqa: N818 - it names an outcome
    """Raised by ``on_trial`` to end the Sweep before the next Trial (the message says why)."""


def plan(corpus: Corpus, select: Sequence[str], repeat: int) -> list[tuple[CaseBase, int]]:
    """Every Trial to run, in Corpus order: ``max(1, trials) * max(1, repeat)`` per Case.

    The size is checked before anything is allocated: ``--repeat`` and the whole plan are held
    to :data:`~eval_core._util.limits.MAX_REPEAT` and
    :data:`~eval_core._util.limits.MAX_PLANNED_TRIALS`.
    """
    if not 1 <= repeat <= MAX_REPEAT:
        raise SelectionError(f"--repeat must be between 1 and {MAX_REPEAT}, not {repeat}")
    if select:
        known = {c.id for c in corpus.cases}
        unknown = [s for s in select if s not in known]
        if unknown:
            raise SelectionError(f"no such Case in {corpus.directory}: {', '.join(unknown)}")
    chosen = [c for c in corpus.cases if not select or c.id in select]
    total = sum(max(1, c.trials) for c in chosen) * repeat
    if total > MAX_PLANNED_TRIALS:
        raise SelectionError(
            f"the Sweep would plan {total} Trials (Cases x trials x --repeat {repeat}); "
            f"the limit is {MAX_PLANNED_TRIALS}"
        )
    return [
        (case, n) for case in chosen for n in range(1, max(1, case.trials) * max(1, repeat) + 1)
    ]


OnTrial = Callable[[int, int, TrialResult], None]
OnEvidence = Callable[[CaseBase, Evidence], None]
ShouldStop = Callable[[Scorecard], str | None]


def run_sweep(
    corpus: Corpus,
    host: Host,
    binding: Binding,
    plugins: PluginSet,
    *,
    select: Sequence[str] = (),
    repeat: int = 1,
    corpus_commit: str = "unknown",
    harness: Mapping[str, str] | None = None,
    unlocked: bool = False,
    on_trial: OnTrial | None = None,
    should_stop: ShouldStop | None = None,
    done: Sequence[TrialResult] = (),
    jobs: int = 1,
    abandon: Callable[[], None] | None = None,
    on_evidence: OnEvidence | None = None,
    executor: Executor | None = None,
    host_options: Mapping[str, str] | None = None,
    note: Callable[[str], None] | None = None,
    planned: Sequence[tuple[CaseBase, int]] | None = None,
) -> Scorecard:
    """Run the planned Trials (``planned``: :func:`plan`'s list, when the caller made it
    already; else planned here from ``select`` and ``repeat``); Ctrl-C (or SIGTERM, see
    :mod:`eval_core._util.stopping`), a ceiling or ``on_trial`` raising :class:`StopSweep`
    ends it with a partial, aborted Scorecard.

    ``done`` are Trials already finished (a resumed Sweep): they are kept, not re-run. Every
    Trial enters the Scorecard through :func:`~eval_core._running.scorecard.made_safe` (its text
    made safe) before ``on_trial`` sees it, and ``on_evidence`` is handed that Trial's Evidence
    (when it got that far) just before. With ``jobs`` > 1 up to that many Trials run at once
    (threads: a Trial mostly waits on its model); ``should_stop`` is asked before each launch,
    so a ceiling overruns by at most ``jobs - 1`` Trials in flight; on an interruption the
    Trials in flight are abandoned (``abandon`` cuts their model calls short) and never
    recorded, so a resumed Sweep runs them again. The Scorecard keeps the planned order whatever
    the order of completion; both callbacks run on the calling thread.

    With an ``executor`` (:mod:`eval_core._plugins.executor`) the Trials run on it instead, ``jobs``
    (``None`` or 0: the executor's choice) of them in flight, under the same loop: the same
    ceilings before each launch, the same recording here, the same order, and on an
    interruption the same abandonment (the executor cancels what it has in flight).
    ``host_options`` are the Host's ``--host-option`` settings, for an executor that makes the
    Host again where it runs; ``note`` takes its progress lines.
    :class:`~eval_core._plugins.executor.ExecutorRefused` propagates (nothing more is launched);
    :class:`~eval_core._plugins.executor.WorkerLost` ends the Sweep partial.
    """
    trials = plan(corpus, select, repeat) if planned is None else list(planned)
    card = Scorecard(
        corpus_hash=corpus.hash,
        suite=corpus.suite,
        model_id=binding.model_id,
        binding="scripted" if binding.scripted else "model",
        host=host.name,
        corpus_commit=corpus_commit,
        harness=dict(harness or {}),
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        corpus_cases=len(corpus.cases),
        selected=sorted(select),
        planned=len(trials),
        unlocked=unlocked,
        plugins=[dict(p) for p in corpus.plugins],
        case_hashes=dict(corpus.case_hashes),
    )
    finished = {(t.case_id, t.trial): made_safe(t) for t in done}
    order = {(case.id, number): index for index, (case, number) in enumerate(trials)}
    card.trials.extend(t for key, t in finished.items() if key in order)
    pending = [
        (index, case, number)
        for index, (case, number) in enumerate(trials, start=1)
        if (case.id, number) not in finished
    ]
    collector.resume()  # if start-up paused it, the Trials run with the collector on
    started = time.perf_counter()
    kinds, fixtures, shared = plugins.kinds, plugins.fixtures, SweepResources()
    checks = plugins.witness_checks  # once: asking imports what must see every Case
    rates = {case.id for case, _ in trials if plugins.probabilistic(case)}
    planned_cases = {case.id: case for _, case, _ in pending}.values()
    for registered in fixtures if executor is None else ():  # an executor warms where it runs
        warm = registered.fixture.warm
        if warm is not None and any(registered.fixture.applies_to(c) for c in planned_cases):
            shared.warm(warm)

    def one(case: CaseBase, number: int) -> Finished:
        seen: list[Evidence] = []
        observe = seen.append if on_evidence is not None else None
        result = run_trial(case, number, host, binding, kinds, fixtures, shared, observe, checks)
        return case, result, seen[-1] if seen else None

    def record(index: int, finished: Finished) -> None:
        case, result, evidence = finished
        result = made_safe(result)
        if case.id in rates:
            result = replace(result, probabilistic=True)
        if on_evidence is not None and evidence is not None:
            on_evidence(case, evidence)
        card.trials.append(result)
        card.spend.add(result.usage, 0 if binding.scripted else result.model_calls)
        if on_trial is not None:
            on_trial(index, len(trials), result)

    def stop() -> str | None:
        return should_stop(card) if should_stop is not None else None

    try:
        if executor is not None and pending:
            work = Work(
                corpus=corpus,
                plugins=plugins,
                host=host.name,
                binding=binding,
                unlocked=unlocked,
                host_options=dict(host_options or {}),
                evidence=on_evidence is not None,
                jobs=jobs or None,
                note=note,
                planned=frozenset(case.id for _, case, _ in pending),
            )
            cases = {case.id: case for _, case, _ in pending}
            reason = at_once(pending, Remote(executor.open(work), cases), record, stop, abandon)
        elif jobs <= 1 or executor is not None:
            reason = one_by_one(pending, one, record, stop)
        else:
            reason = at_once(pending, Threads(one, jobs), record, stop, abandon)
        if reason:
            card.aborted_reason = f"{reason} after {len(card.trials)} of {len(trials)} Trials"
    except KeyboardInterrupt:
        card.aborted_reason = f"interrupted after {len(card.trials)} of {len(trials)} Trials"
    except (StopSweep, WorkerLost) as exc:
        card.aborted_reason = f"{exc} after {len(card.trials)} of {len(trials)} Trials"
    finally:
        shared.close()
    card.trials.sort(key=lambda t: order.get((t.case_id, t.trial), len(order)))
    card.duration_ms = round((time.perf_counter() - started) * 1000, 1)
    card.tally()
    card.noise = noise_floor(card.trials)
    card.sections = plugins.sections(card, corpus.cases)
    card.caches = dict(cache_use.used())
    for trial in card.trials:
        for logger, count in (trial.dropped or {}).items():
            card.dropped[logger] = card.dropped.get(logger, 0) + count
    return card
