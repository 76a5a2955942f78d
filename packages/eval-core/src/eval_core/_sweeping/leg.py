"""One leg of a Sweep: one model's Trials, each appended to its trial log as it finishes.

A leg starts fresh (a new trial log, its header naming what the Trials will be compared on) or
resumes one (the log's header must match); the ceilings, the stop on Ctrl-C or SIGTERM and the
concurrency are the leg's own, so a Matrix runs its legs strictly one after another.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence
from eval_core._loading.opening import Opened, Refused
from eval_core._plugins.commands import default_log
from eval_core._plugins.executor import Executor, ExecutorRefused
from eval_core._plugins.model_source import Ceilings, ModelRefused
from eval_core._recording.log_records import (
    LogHeader,
    ResumeRefused,
    check_resumable,
    read,
    vendor_errored,
)
from eval_core._recording.transcript import FORMAT as TRANSCRIPT_FORMAT
from eval_core._recording.transcript import evidence_schema, pack_path
from eval_core._recording.triallog import LogWriteFailed, TrialLog
from eval_core._running.progress import Progress
from eval_core._running.runner import StopSweep, run_sweep
from eval_core._running.scorecard import Scorecard, Spend
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult
from eval_core._sweeping.options import SweepOptions
from eval_core._util.provenance import Provenance
from eval_core._util.redaction import Redactor
from eval_core._util.stopping import Stopping

if TYPE_CHECKING:
    from eval_core._plugins.host import Binding
    from eval_core._plugins.model_source import ModelLeg


class Run(msgspec.Struct):
    """One leg as it ran, and what a gate plug-in made of it (:func:`eval_sweep_leg
    <eval_core._plugins.hookspecs.eval_sweep_leg>`)."""

    name: str
    leg: ModelLeg | None
    card: Scorecard | None = None
    unavailable: str | None = None
    notes: list[str] = msgspec.field(default_factory=list)
    reasons: list[str] = msgspec.field(default_factory=list)
    refused: bool = False
    log_path: Path | None = None
    write_failures: list[str] = msgspec.field(default_factory=list)
    states: dict[str, str] | None = None
    """Each Case's state as a gate found it (eval-release: against the Baseline, ``regressed``,
    ``unchanged``...), for the files it writes; ``None``: not compared."""


def trial_log_path(options: SweepOptions, suite: str, model: str) -> Path:
    """The leg's trial log; a default name is unique (time, process id, random suffix)."""
    if options.resume is not None:
        return options.resume
    if options.log is not None:
        return options.log
    return default_log(options.outputs_dir, suite, model)


def sweep_leg(
    options: SweepOptions,
    opened: Opened,
    run: Run,
    trials: Sequence[tuple[CaseBase, int]],
    provenance: Provenance,
    progress: Progress,
    redactor: Redactor,
    stopping: Stopping,
    elsewhere: Executor | None = None,
) -> Scorecard:
    """Run one leg's ``trials`` (planned once for every leg), appending each to its trial log."""
    corpus = opened.corpus
    planned = len(trials)
    path = run.log_path
    assert path is not None
    done: list[TrialResult] = []
    if options.resume is not None:
        try:
            logged = read(path)
            check_resumable(
                logged.header,
                corpus.hash,
                run.name,
                list(options.cases),
                options.repeat,
                provenance.commit,
                provenance.harness,
            )
            log = TrialLog.resume(path, logged, redactor.scrub_bytes)
        except ResumeRefused as exc:
            raise Refused(f"--resume refused: {exc}") from None
        except OSError as exc:
            raise Refused(f"--resume refused: {path}: cannot append: {exc.strerror}") from None
        if logged.torn:
            progress.warn(
                f"repaired {path}: dropped a torn last line ({logged.torn} bytes, a Trial that "
                "was being written when the Sweep died); it runs again"
            )
        done = logged.trials
        if options.rerun_errored:
            again = [t for t in done if vendor_errored(t)]
            done = [t for t in done if not vendor_errored(t)]
            progress.note(
                f"resuming {path}: {len(done)} of {planned} Trials kept, {len(again)} "
                "vendor-errored run again (--rerun-errored)"
            )
        else:
            progress.note(f"resuming {path}: {len(done)} of {planned} Trials already done")
    else:
        header = LogHeader(
            corpus_hash=corpus.hash,
            model_id=run.name,
            selected=sorted(options.cases),
            repeat=options.repeat,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            corpus_commit=provenance.commit,
            harness=dict(provenance.harness),
            transcripts=TRANSCRIPT_FORMAT,
            evidence_schema=evidence_schema(),
            suite=corpus.suite,
            binding="scripted" if run.leg is None else "model",
            host=opened.host.name,
            planned=planned,
            corpus_cases=len(corpus.cases),
            plugins=[dict(p) for p in corpus.plugins],
        )
        try:
            log = TrialLog.create(path, header, redactor.scrub_bytes)
        except FileExistsError:
            raise Refused(f"output refused: the trial log {path}: already exists") from None
        except (OSError, LogWriteFailed) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise Refused(f"output refused: the trial log {path}: {reason}") from None
    progress.note(f"trial log  {path}")
    binding: Binding = ScriptedBinding()
    leg = run.leg
    if leg is not None:
        ceilings = Ceilings(options.max_tokens, options.max_tokens_per_trial, options.max_spend)
        try:
            binding = leg.start(ceilings, planned)
        except ModelRefused as exc:
            log.close()
            raise Refused(str(exc)) from None
        progress.note(f"Sweep  {leg.describe()}")
    # an executor picks its own number for the scripted binding (0): its workers' CPUs. In this
    # process the scripted model's Trials run one at a time: they compute and hardly wait, so
    # threads would only take turns at the interpreter lock (the shipped Corpus, L3 included,
    # since git runs in process: 2.9 s one at a time, 3.0 s two at a time, 3.6 s four)
    jobs = options.jobs or (
        leg.concurrency
        if leg is not None
        else 0
        if elsewhere and not getattr(elsewhere, "supervising", False)
        else 1
    )
    if jobs > 1 and (options.jobs or leg is not None):
        progress.note(f"{jobs} Trials at a time")

    def should_stop(card: Scorecard) -> str | None:
        if stopping.received is not None:
            return f"interrupted by {stopping.name}"
        return leg.should_stop(card) if leg is not None else None

    observed: list[tuple[CaseBase, Evidence]] = []

    def on_evidence(case: CaseBase, evidence: Evidence) -> None:
        observed.append((case, evidence))

    recorded: list[int] = []

    def on_trial(index: int, total: int, result: TrialResult) -> None:
        recorded.append(index)
        seen = observed.pop() if observed else None
        observed.clear()
        try:
            if seen is None:
                log.append(result)
            else:
                log.append(result, seen[0].expect, seen[1])
        except LogWriteFailed as exc:
            run.write_failures.append(
                f"{exc}; the Sweep stopped, and the Trials before this one are in the log "
                "(free the space, then --resume it)"
            )
            raise StopSweep(str(exc)) from None
        progress.trial(result)

    progress.begin(planned, min(len(done), planned))
    try:
        with stopping.running():
            card = run_sweep(
                corpus,
                opened.host,
                binding,
                opened.plugins,
                select=options.cases,
                repeat=options.repeat,
                corpus_commit=provenance.commit,
                harness=provenance.harness,
                unlocked=opened.unlocked,
                on_trial=on_trial,
                should_stop=should_stop,
                done=done,
                jobs=jobs,
                abandon=leg.close if leg is not None else None,
                on_evidence=on_evidence,
                executor=elsewhere,
                host_options=opened.host_options,
                note=progress.note,
                planned=trials,
            )
    except ExecutorRefused as exc:
        log.close()
        kept = len(done) + len(recorded)
        resume = f"; the trial log {path} keeps {kept} Trial(s): --resume it" if kept else ""
        if not kept and options.resume is None:  # the log this Sweep made holds nothing
            for made in (path, pack_path(path)):
                made.unlink(missing_ok=True)
        name = elsewhere.name if elsewhere is not None else "executor"
        raise Refused(f"--executor {name} refused: {exc}{resume}") from None
    finally:
        log.close()
        if leg is not None:
            leg.close()
    if done:
        count_all(card, {(t.case_id, t.trial) for t in done})
    if card.aborted_reason:
        progress.note(f"stopped early: {card.aborted_reason}")
    if leg is not None:
        leg.settle(card)
    return card


def count_all(card: Scorecard, resumed: set[tuple[str, int]]) -> None:
    """A resumed Sweep's Spend counts every Trial of its Scorecard, the ones read back from the
    log included, as its dollars are priced (and its ceilings checked) over them all; the
    runner counted only the Trials this process ran. ``resumed`` says which came from the log.
    """
    spend = Spend(resumed=sum((t.case_id, t.trial) in resumed for t in card.trials))
    for trial in card.trials:
        spend.add(trial.usage, 0 if card.binding == "scripted" else trial.model_calls)
    card.spend = spend
