"""A Sweep: a Corpus (or a selection) run against one model, strictly one Trial after another."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial

from eval_core.case import CaseBase
from eval_core.corpus import Corpus
from eval_core.evidence import Evidence
from eval_core.fixtures import Shared
from eval_core.host import Binding, Host
from eval_core.limits import MAX_PLANNED_TRIALS, MAX_REPEAT
from eval_core.plugins import PluginSet
from eval_core.scorecard import Scorecard, admit, noise_floor
from eval_core.trial import TrialResult, run_trial


class SelectionError(Exception):
    """``--case`` named a Case the Corpus does not have, or the plan is over a limit."""


class StopSweep(Exception):  # noqa: N818 - it names an outcome
    """Raised by ``on_trial`` to end the Sweep before the next Trial (the message says why)."""


def plan(corpus: Corpus, select: Sequence[str], repeat: int) -> list[tuple[CaseBase, int]]:
    """Every Trial to run, in Corpus order: ``max(1, trials) * max(1, repeat)`` per Case.

    The size is checked before anything is allocated: ``--repeat`` and the whole plan are held
    to :data:`~eval_core.limits.MAX_REPEAT` and :data:`~eval_core.limits.MAX_PLANNED_TRIALS`.
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
    harness_version: str = "unknown",
    unlocked: bool = False,
    on_trial: OnTrial | None = None,
    should_stop: ShouldStop | None = None,
    done: Sequence[TrialResult] = (),
    on_evidence: OnEvidence | None = None,
) -> Scorecard:
    """Run the planned Trials; Ctrl-C (or SIGTERM, see :mod:`eval_core.stopping`), a ceiling
    or ``on_trial`` raising :class:`StopSweep` ends it with a partial, aborted Scorecard.

    ``done`` are Trials already finished (a resumed Sweep): they are kept, not re-run. Every
    Trial enters the Scorecard through :func:`~eval_core.scorecard.admit` (its text made safe)
    before ``on_trial`` sees it. ``on_evidence`` is handed a Trial's Evidence (when it got
    that far) just before ``on_trial`` is called for the same Trial.
    """
    trials = plan(corpus, select, repeat)
    card = Scorecard(
        corpus_hash=corpus.hash,
        suite=corpus.suite,
        model_id=binding.model_id,
        binding="scripted" if binding.scripted else "model",
        host=host.name,
        harness_version=harness_version,
        started_at=datetime.now(UTC).isoformat(timespec="seconds"),
        corpus_cases=len(corpus.cases),
        selected=sorted(select),
        planned=len(trials),
        unlocked=unlocked,
        plugins=[dict(p) for p in corpus.plugins],
    )
    finished = {(t.case_id, t.trial): admit(t) for t in done}
    started = time.perf_counter()
    kinds, fixtures, shared = plugins.kinds, plugins.fixtures, Shared()
    try:
        for index, (case, number) in enumerate(trials, start=1):
            previous = finished.get((case.id, number))
            if previous is not None:
                card.trials.append(previous)
                continue
            if should_stop is not None:
                reason = should_stop(card)
                if reason:
                    card.aborted_reason = (
                        f"{reason} after {len(card.trials)} of {len(trials)} Trials"
                    )
                    break
            observe = None
            if on_evidence is not None:
                observe = partial(on_evidence, case)
            result = admit(run_trial(case, number, host, binding, kinds, fixtures, shared, observe))
            card.trials.append(result)
            card.spend.add(result.usage, 0 if binding.scripted else result.model_calls)
            if on_trial is not None:
                on_trial(index, len(trials), result)
    except KeyboardInterrupt:
        card.aborted_reason = f"interrupted after {len(card.trials)} of {len(trials)} Trials"
    except StopSweep as exc:
        card.aborted_reason = f"{exc} after {len(card.trials)} of {len(trials)} Trials"
    finally:
        shared.close()
    card.duration_ms = round((time.perf_counter() - started) * 1000, 1)
    card.tally()
    card.noise = noise_floor(card.trials)
    return card
