"""The release gate: a Sweep (or a Matrix) of a Corpus, compared with its Baseline, maybe promoted.

This is what `eval sweep` does once its flags are parsed. Legs (one per model) run strictly one
after another, each with the full ceiling. Each Trial is appended to a trial log as it finishes.
A Baseline comparison across different Corpora or models is refused, never computed; promotion
happens only when asked, from a clean tree, for a complete, unerrored, unregressed Sweep of a
real model, and always to the canonical path.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence
from eval_core._loading.opening import (
    COMPARISON_REFUSED,
    REFUSED,
    Opened,
    Refused,
    host_options,
    open_corpus,
)
from eval_core._plugins.commands import CANONICAL, DEFAULT_LOG  # CANONICAL: `--baseline` sans PATH
from eval_core._plugins.executor import Executor, ExecutorRefused, executor
from eval_core._plugins.model_source import Ceilings, ModelRefused
from eval_core._recording.transcript import FORMAT as TRANSCRIPT_FORMAT
from eval_core._recording.transcript import pack_path, schema_hash
from eval_core._recording.triallog import (
    LogHeader,
    LogWriteFailed,
    ResumeRefused,
    TrialLog,
    check_resumable,
    read,
)
from eval_core._release import baseline as baselines
from eval_core._release import delta as deltas
from eval_core._release.matrix import Leg, not_cleared_matrix, unavailable_reason
from eval_core._release.render import render_text, render_verdict
from eval_core._running.progress import Progress
from eval_core._running.runner import SelectionError, StopSweep, plan, run_sweep
from eval_core._running.scorecard import Scorecard, encode_json, not_cleared
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult
from eval_core._util import outputs
from eval_core._util.atomic import write_atomic
from eval_core._util.input_files import InputRefused, read_json_input
from eval_core._util.limits import MAX_JOBS, MAX_REPEAT
from eval_core._util.provenance import harness_version, is_clean
from eval_core._util.redaction import Redactor
from eval_core._util.safe_text import clean
from eval_core._util.stopping import Stopping

if TYPE_CHECKING:
    from eval_core._loading.corpus import Corpus
    from eval_core._plugins.host import Binding
    from eval_core._plugins.judge import Judge
    from eval_core._plugins.model_source import ModelLeg, ModelSource
    from eval_core._plugins.plugins import PluginSet

INTERRUPTED = 130  # SIGINT or SIGTERM before the first Trial: no Scorecard to print


@dataclass(frozen=True, slots=True)
class SweepOptions:
    corpus: Path = Path("corpus")
    cases: tuple[str, ...] = ()
    repeat: int = 1
    output_format: str = "text"
    save: Path | None = None
    save_dir: Path | None = None
    junit_xml: Path | None = None
    log: Path | None = None
    resume: Path | None = None
    quiet: bool = False
    verbose: bool = False
    host: str = "agent-runtime"
    host_options: tuple[str, ...] = ()
    unlocked: bool = False
    models: tuple[str, ...] = ()
    models_file: Path = Path("models.toml")
    max_tokens: int | None = None
    max_tokens_per_trial: int | None = None
    max_spend: float | None = None
    baseline: str | None = None
    promote: bool = False
    jobs: int | None = None
    executor: str | None = None
    address: str | None = None
    root: Path = Path(".")


@dataclass(slots=True)
class _Run:
    """One leg as it ran, and what the gate made of it."""

    name: str
    leg: ModelLeg | None
    card: Scorecard | None = None
    unavailable: str | None = None
    notes: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    refused: bool = False
    log_path: Path | None = None
    write_failures: list[str] = field(default_factory=list)


SCRIPTED_JOBS = 4
"""Trials at once on the scripted binding unless --jobs says otherwise, when an L3 Case runs: a
durable Trial waits on its own subprocesses (git, the MCP provider) and databases, and four
overlap those waits best on two cores (the shipped Corpus: 6.4 s one by one, 5.4 s with two,
4.9 s with four). L2 Trials never wait, so they run one at a time: threads would only take turns
at the interpreter lock (1,000 synthetic L2 Cases: 1.0 s one at a time, 1.2 s four at a time)."""


def scripted_jobs(corpus: Corpus, selected: Sequence[str]) -> int:
    """The scripted binding's default: :data:`SCRIPTED_JOBS` when an L3 Case runs, else 1."""
    chosen = set(selected)
    durable = any(c.tier == "l3" and (not chosen or c.id in chosen) for c in corpus.cases)
    return SCRIPTED_JOBS if durable else 1


def validate(options: SweepOptions) -> None:
    """Flag combinations that can never make sense are refused before anything runs."""
    if options.output_format not in ("text", "json"):
        raise Refused(f"--format must be text or json, not {options.output_format!r}")
    if any(not name for name in options.models):
        raise Refused(
            f"--model {','.join(options.models)!r} has an empty model name: name a pin of "
            "the models file (leave --model out for the scripted binding)"
        )
    if not 1 <= options.repeat <= MAX_REPEAT:
        raise Refused(f"--repeat must be between 1 and {MAX_REPEAT}, not {options.repeat}")
    if options.jobs is not None and not 1 <= options.jobs <= MAX_JOBS:
        raise Refused(f"--jobs must be between 1 and {MAX_JOBS}, not {options.jobs}")
    if options.address is not None and options.executor is None:
        raise Refused("--address names an executor's cluster: give --executor too (--executor ray)")
    if options.executor is not None and not options.executor.strip():
        raise Refused("--executor needs a name (--executor ray)")
    many = len(options.models) > 1
    rules = [
        (len(set(options.models)) != len(options.models), "--model names a model twice"),
        (
            options.save is not None and options.save_dir is not None,
            "--save and --save-dir are exclusive",
        ),
        (
            options.save is not None and many,
            "--save writes one Scorecard: use --save-dir with several models",
        ),
        (
            bool(options.cases) and (options.baseline is not None or options.promote),
            "--case selects part of the Corpus: a partial Sweep is never compared or promoted",
        ),
        (
            options.baseline not in (None, CANONICAL) and many,
            "--baseline PATH names one model's Baseline: with several models use --baseline",
        ),
        (options.resume is not None and many, "--resume continues one model's Sweep"),
        (options.log is not None and many, "--log names one trial log: models log apart"),
        (options.resume is not None and options.log is not None, "--resume appends to its log"),
    ]
    for broken, message in rules:
        if broken:
            raise Refused(message)
    if options.max_tokens is not None and options.max_tokens_per_trial is not None:
        raise Refused("--max-tokens and --max-tokens-per-trial are mutually exclusive")
    for flag, value in (
        ("--max-tokens", options.max_tokens),
        ("--max-tokens-per-trial", options.max_tokens_per_trial),
        ("--max-spend", options.max_spend),
    ):
        if value is not None and (not math.isfinite(value) or value <= 0):
            raise Refused(f"{flag} must be a finite number > 0, not {value!r}")
    if options.models and options.max_tokens is None and options.max_tokens_per_trial is None:
        raise Refused(
            f"--model {','.join(options.models)} is a real model: pass a token ceiling, "
            "--max-tokens N or --max-tokens-per-trial N"
        )


def _legs(options: SweepOptions, source: ModelSource | None) -> list[_Run]:
    """Each model's leg from the model source; a preflight failure refuses one model alone,
    and marks a Matrix leg unavailable."""
    if not options.models:
        return [_Run("scripted", None)]
    from eval_core._plugins.model_source import ModelUnavailable

    if source is None:
        raise Refused(
            f"--model {','.join(options.models)}: no model source is installed (a plug-in "
            "providing eval_models, such as eval-bindings); without --model the scripted "
            "binding runs"
        )
    runs: list[_Run] = []
    try:
        for name in options.models:
            try:
                runs.append(_Run(name, source.open_leg(options.models_file, name)))
            except ModelUnavailable as exc:
                if len(options.models) == 1:
                    raise Refused(str(exc)) from None
                runs.append(_Run(name, None, unavailable=str(exc)))
    except ModelRefused as exc:
        for run in runs:
            if run.leg is not None:
                run.leg.close()
        raise Refused(str(exc)) from None
    return runs


def sweep(options: SweepOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the gate; return the exit code (0 cleared, 1 not cleared, 2 an output could not be
    written, 3 comparison refused). SIGTERM is handled like Ctrl-C
    (:mod:`eval_core._util.stopping`).
    ``out`` and ``err`` default to the streams of the moment (stdout, stderr).
    """
    from eval_core._loading.opening import plugins

    out = out or sys.stdout
    err = err or sys.stderr
    validate(options)
    found = plugins()
    runs = _legs(options, found.model_source)
    redactor = Redactor(s for r in runs if r.leg is not None for s in r.leg.secrets)
    elsewhere: Executor | None = None
    try:
        if options.executor is not None:
            try:
                elsewhere = executor(options.executor, options.address)
            except ExecutorRefused as exc:
                raise Refused(f"executor refused: {exc}") from None
        with Stopping(err) as stopping:
            return _sweep(options, found, runs, redactor, stopping, out, err, elsewhere)
    finally:
        for run in runs:
            if run.leg is not None:
                run.leg.close()
        if elsewhere is not None:
            elsewhere.close()


def _sweep(
    options: SweepOptions,
    found: PluginSet,
    runs: list[_Run],
    redactor: Redactor,
    stopping: Stopping,
    out: TextIO,
    err: TextIO,
    elsewhere: Executor | None = None,
) -> int:
    judge = _judge(found.model_source, [r.leg for r in runs if r.leg is not None], err)
    if judge is not None and elsewhere is not None:
        judge.close()
        raise Refused(
            f"--executor {elsewhere.name}: a Judge is configured ({judge.identity}) and the "
            "Judge does not travel to an executor's workers: sweep without --executor"
        )
    opened: Opened | None = None
    progress: Progress | None = None
    try:
        try:
            with stopping.running():
                opened = open_corpus(
                    options.corpus,
                    options.host,
                    options.unlocked,
                    found=found,
                    host_options=host_options(options.host_options),
                )
                version = harness_version(options.root)
                try:
                    trials = plan(opened.corpus, options.cases, options.repeat)
                except SelectionError as exc:
                    raise Refused(str(exc)) from None
                _check_outputs(options, opened.corpus.suite, runs)
        except KeyboardInterrupt:
            raise Refused(
                f"eval: interrupted by {stopping.name or 'SIGINT'} before the first Trial: "
                "no Scorecard",
                INTERRUPTED,
            ) from None
        progress = Progress(stream=err, quiet=options.quiet)
        interrupted = False
        for run in runs:
            if run.unavailable is not None:
                continue
            if interrupted:
                run.unavailable = "not run: the Matrix was interrupted"
                continue
            run.card = _sweep_leg(
                options, opened, run, len(trials), version, progress, redactor, stopping, elsewhere
            )
            run.unavailable = unavailable_reason(run.card) if len(runs) > 1 else None
            interrupted = (run.card.aborted_reason or "").startswith("interrupted") or bool(
                run.write_failures
            )
    finally:
        if progress is not None:
            progress.close()
        if opened is not None:
            opened.host.close()  # removes the L3 tier's temporary directory
        if elsewhere is not None:
            elsewhere.close()  # still under Stopping: a second Ctrl-C cannot cut it short
        if judge is not None:
            from eval_core._plugins.judge import install, report

            install(None)
            judge.close()
            if judge.calls:
                err.write(report(judge) + "\n")
    for run in runs:
        if run.card is not None and run.unavailable is None:
            _gate(options, run, version, redactor)
    code = _report(options, opened, runs, redactor, out, err)
    failures = [f for run in runs for f in run.write_failures]
    files = _case_files(opened.corpus, options.root) if options.junit_xml and opened else {}
    failures.extend(_write_outputs(options, runs, trials, redactor, files))
    for failure in failures:
        err.write(clean(redactor.scrub_text(failure)) + "\n")
    err.flush()
    return REFUSED if failures else code


def _check_outputs(options: SweepOptions, suite: str, runs: Sequence[_Run]) -> None:
    """Every output path of the Sweep, checked before the first Trial (see ``_util.outputs``)."""
    planned: list[outputs.Output] = []
    if options.save is not None:
        planned.append(outputs.Output("--save", options.save))
    if options.junit_xml is not None:
        planned.append(outputs.Output("--junit-xml", options.junit_xml))
    inputs: list[tuple[str, Path]] = []
    if options.models:
        inputs.append(("the models file", options.models_file))
    if options.baseline not in (None, CANONICAL):
        inputs.append(("the --baseline compared with", Path(str(options.baseline))))
    try:
        if options.save_dir is not None:
            outputs.check_directory("--save-dir", options.save_dir)
            for run in runs:
                planned.append(outputs.Output("--save-dir", options.save_dir / f"{run.name}.json"))
        for run in runs:
            if run.unavailable is not None:
                continue
            run.log_path = _log_path(options, suite, run.name)
            if options.resume is not None:
                inputs.append(("the trial log --resume continues", run.log_path))
            else:
                flag = "--log" if options.log is not None else "the trial log"
                planned.append(outputs.Output(flag, run.log_path, fresh=True))
                planned.append(
                    outputs.Output(f"{flag}'s transcripts", pack_path(run.log_path), fresh=True)
                )
        outputs.check_all(planned, inputs, options.root)
    except outputs.OutputRefused as exc:
        raise Refused(f"output refused: {exc}") from None


def _judge(source: ModelSource | None, legs: Sequence[ModelLeg], err: TextIO) -> Judge | None:
    """Check and install the Judge before the first Trial (``None`` when none is configured,
    or no model source is installed to reach one)."""
    if source is None:
        return None
    from eval_core._plugins.judge import install

    def warn(line: str) -> None:
        err.write(line.rstrip("\n") + "\n")

    try:
        judge = source.judge(legs, warn)
    except ModelRefused as exc:
        raise Refused(str(exc)) from None
    if judge is not None:
        install(judge)
    return judge


def _log_path(options: SweepOptions, suite: str, model: str) -> Path:
    """The leg's trial log; a default name is unique (time, process id, random suffix)."""
    if options.resume is not None:
        return options.resume
    if options.log is not None:
        return options.log
    name = DEFAULT_LOG.format(
        suite=suite,
        model=model,
        time=datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ"),
        pid=os.getpid(),
        random=os.urandom(3).hex(),
    )
    return options.root / name


def _sweep_leg(
    options: SweepOptions,
    opened: Opened,
    run: _Run,
    planned: int,
    version: str,
    progress: Progress,
    redactor: Redactor,
    stopping: Stopping,
    elsewhere: Executor | None = None,
) -> Scorecard:
    corpus = opened.corpus
    path = run.log_path
    assert path is not None
    done: list[TrialResult] = []
    if options.resume is not None:
        try:
            logged = read(path)
            check_resumable(
                logged.header, corpus.hash, run.name, list(options.cases), options.repeat, version
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
        progress.note(f"resuming {path}: {len(done)} of {planned} Trials already done")
    else:
        header = LogHeader(
            corpus_hash=corpus.hash,
            model_id=run.name,
            selected=sorted(options.cases),
            repeat=options.repeat,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            harness_version=version,
            transcripts=TRANSCRIPT_FORMAT,
            evidence_schema=schema_hash(Evidence),
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
    # an executor picks its own number for the scripted binding (0): its workers' CPUs
    jobs = options.jobs or (
        leg.concurrency
        if leg is not None
        else 0
        if elsewhere
        else scripted_jobs(corpus, options.cases)
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
                harness_version=version,
                unlocked=opened.unlocked,
                on_trial=on_trial,
                should_stop=should_stop,
                done=done,
                jobs=jobs,
                abandon=leg.close if leg is not None else None,
                on_evidence=on_evidence,
                executor=elsewhere,
                host_options=host_options(options.host_options),
                note=progress.note,
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
    if card.aborted_reason:
        progress.note(f"stopped early: {card.aborted_reason}")
    if leg is not None:
        leg.settle(card)
    return card


def _gate(options: SweepOptions, run: _Run, version: str, redactor: Redactor) -> None:
    """Compare with the Baseline, then promote if asked and allowed."""
    card = run.card
    assert card is not None
    regressed = 0
    if options.baseline is not None:
        path = (
            baselines.canonical_path(options.root, card.suite, card.model_id)
            if options.baseline == CANONICAL
            else Path(options.baseline)
        )
        try:
            base = baselines.read(path)
            delta = deltas.compare(base.scorecard, card, base.harness_version)
        except (baselines.BaselineError, deltas.ComparisonRefused) as exc:
            run.refused = True
            run.notes.append(f"REFUSED  no delta computed: {exc}")
            run.reasons.append(f"{run.name}: the Baseline comparison refused this Sweep")
        else:
            run.notes.append(deltas.render(delta, not is_clean(base.harness_version)).rstrip())
            regressed = len(delta.of("regressed"))
            if regressed:
                run.reasons.append(
                    f"{run.name}: {regressed} Case(s) regressed against the Baseline"
                )
    if not options.promote:
        return
    why = _promotion_refused(options, card, version, run.refused, regressed)
    if why:
        run.notes.append(f"NOT PROMOTED  {run.name}: {why}")
        run.reasons.append(f"{run.name}: promotion refused: {why}")
        return
    try:
        target = baselines.canonical_path(options.root, card.suite, card.model_id)
    except baselines.BaselineError as exc:
        run.reasons.append(f"{run.name}: promotion refused: {exc}")
        return
    try:
        baselines.write(target, card, version, redactor.scrub_bytes)
    except OSError as exc:
        run.notes.append(f"NOT PROMOTED  {run.name}: {target} could not be written")
        run.write_failures.append(
            f"eval: the Baseline {target} could not be written: {exc.strerror or exc}"
        )
        return
    if card.noise is None:
        run.notes.append("NOTE  promoted without --repeat: this Baseline records no noise floor")
    run.notes.append(f"Promoted  {card.model_id} Baseline at {version} -> {target}")


def _promotion_refused(
    options: SweepOptions, card: Scorecard, version: str, refused: bool, regressed: int
) -> str | None:
    if card.binding == "scripted":
        return "the scripted binding is told what to say: it is never a Baseline"
    if not is_clean(version):
        return f"the tree is not clean (harness {version}): commit first"
    if card.partial:
        return "the Sweep is partial (a selection, aborted, or Trials never ran)"
    if card.errored:
        return f"{card.errored} Trial(s) errored"
    if refused:
        return "the Baseline comparison was refused"
    if regressed:
        return f"{regressed} Case(s) regressed against the Baseline"
    if card.noise is not None and len(card.noise.measured) < card.corpus_cases:
        return "the noise floor did not measure every Case"
    return None


def _case_files(corpus: Corpus, root: Path) -> dict[str, str]:
    """Each Case's file as JUnit names it: its path from the root of the repository the
    Sweep ran in (else from the working directory ``root``; a file outside it, as given)."""
    from eval_core._util.provenance import repository_root

    base = Path(os.path.abspath(repository_root(root) or root))
    found: dict[str, str] = {}
    for case_id in corpus.files:
        file = corpus.file(case_id)
        assert file is not None
        absolute = Path(os.path.abspath(file))
        try:
            found[case_id] = absolute.relative_to(base).as_posix()
        except ValueError:
            found[case_id] = file.as_posix()
    return found


def _write_outputs(
    options: SweepOptions,
    runs: Sequence[_Run],
    trials: Sequence[Any],
    redactor: Redactor,
    files: Mapping[str, str] | None = None,
) -> list[str]:
    """Write ``--save``/``--save-dir``/``--junit-xml``; each failure as one line (after the
    Scorecard is on stdout: a failed write never loses the Sweep)."""
    cards = [r.card for r in runs if r.card is not None]
    writes: list[tuple[str, Path, Any]] = []
    if options.save is not None and cards:
        writes.append(("--save", options.save, lambda c=cards[0]: encode_json(c)))
    if options.save_dir is not None:
        for run in runs:
            if run.card is not None:
                path = options.save_dir / f"{run.name}.json"
                writes.append(("--save-dir", path, lambda c=run.card: encode_json(c)))
    if options.junit_xml is not None:
        from eval_core._release import junit

        writes.append(
            ("--junit-xml", options.junit_xml, lambda: junit.render(cards, trials, files))
        )
    failures: list[str] = []
    for flag, path, render in writes:
        try:
            write_atomic(path, redactor.scrub_bytes(render()))
        except OSError as exc:
            failures.append(f"eval: {flag} {path} could not be written: {exc.strerror or exc}")
    return failures


def _report(
    options: SweepOptions,
    opened: Opened | None,
    runs: Sequence[_Run],
    redactor: Redactor,
    out: TextIO,
    err: TextIO,
) -> int:
    """The Scorecard(s) on stdout, notes on stderr; every byte through the redactor, and text
    for people through :func:`~eval_core._util.safe_text.clean` (no control character reaches a
    terminal)."""
    legs = [Leg(r.name, r.card, r.unavailable) for r in runs]
    matrix_sections = []
    if len(runs) > 1:
        reasons = not_cleared_matrix(legs)
        if opened is not None:
            measured = [r.card for r in runs if r.card is not None and r.unavailable is None]
            matrix_sections = opened.plugins.matrix_sections(measured)
            reasons.extend(r for section in matrix_sections for r in section.reasons)
    else:
        reasons = not_cleared(runs[0].card) if runs[0].card is not None else []
    for run in runs:
        reasons.extend(run.reasons)
    notes = [note for run in runs for note in run.notes]
    if options.output_format == "json":
        cards = [encode_json(r.card) for r in runs if r.card is not None]
        body = (
            cards[0]
            if len(runs) == 1
            else b"[\n" + b",\n".join(c.rstrip() for c in cards) + b"\n]\n"
        )
        out.write(redactor.scrub_bytes(body).decode())
        err.write(clean(redactor.scrub_text("".join(n + "\n" for n in notes))))
        err.write(clean(render_verdict(reasons)))
    else:
        parts: list[str] = []
        if len(runs) > 1 and opened is not None:
            from eval_core._release.matrix import render as render_matrix

            case_ids = [
                c.id for c in opened.corpus.cases if not options.cases or c.id in options.cases
            ]
            total_ms = sum(r.card.duration_ms for r in runs if r.card is not None)
            parts.append(render_matrix(legs, case_ids, opened.corpus.hash, total_ms))
            parts.extend(line + "\n" for section in matrix_sections for line in section.lines)
        for run in runs:
            if run.card is not None:
                parts.append(render_text(run.card, options.verbose))
        parts.extend(note + "\n" for note in notes)
        parts.append(render_verdict(reasons))
        out.write(clean(redactor.scrub_text("".join(parts))))
    out.flush()
    if any(r.refused for r in runs):
        return COMPARISON_REFUSED
    return 1 if reasons else 0


def compare(before: Path, after: Path, out: TextIO | None = None) -> int:
    """`eval compare`: the delta between two saved Scorecards (or Baselines), same refusals."""
    out = out or sys.stdout
    (old, version), (new, _) = (_scorecard_of(path) for path in (before, after))
    try:
        delta = deltas.compare(old, new, version or "")
    except deltas.ComparisonRefused as exc:
        raise Refused(f"REFUSED  no delta computed: {exc}", COMPARISON_REFUSED) from None
    earlier = (
        f"the Scorecard {before} was swept"
        if version is None
        else f"the Baseline {before} was promoted"
    )
    dirty = version is not None and not is_clean(version)
    out.write(clean(deltas.render(delta, dirty, earlier)))
    regressed = delta.of("regressed")
    return 1 if regressed else 0


def _scorecard_of(path: Path) -> tuple[Scorecard, str | None]:
    """A saved Scorecard (``None``), or the Scorecard inside a Baseline with the Baseline's
    harness version."""
    import msgspec

    try:
        raw = msgspec.json.decode(read_json_input(path))
    except InputRefused as exc:
        raise Refused(str(exc)) from None
    except msgspec.DecodeError as exc:
        raise Refused(f"{path}: $: corrupt or truncated JSON ({exc})") from None
    if isinstance(raw, dict) and "scorecard" in raw:
        try:
            base = baselines.read(path)
        except baselines.BaselineError as exc:
            raise Refused(str(exc)) from None
        return base.scorecard, base.harness_version
    try:
        return msgspec.convert(raw, Scorecard), None
    except msgspec.ValidationError as exc:
        raise Refused(f"{path}: not a Scorecard: {exc}") from None
