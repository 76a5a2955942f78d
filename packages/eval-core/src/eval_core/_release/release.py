"""The release gate: a Sweep (or a Matrix) of a Corpus, compared with its Baseline, maybe promoted.

This is what `eval sweep` does once its flags are parsed. Legs (one per model) run strictly one
after another, each with the full ceiling. Each Trial is appended to a trial log as it finishes.
A Baseline comparison across different Corpora or models is refused, never computed; promotion
happens only when asked, from a clean tree, for a complete, unerrored, unregressed Sweep of a
real model, and always to the canonical path.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from eval_core._loading.opening import (
    COMPARISON_REFUSED,
    REFUSED,
    Opened,
    Refused,
    host_options,
    open_corpus,
)
from eval_core._plugins.executor import Executor, ExecutorRefused, executor
from eval_core._plugins.model_source import ModelRefused
from eval_core._release.compare import compare
from eval_core._release.gate import gate
from eval_core._release.leg import SCRIPTED_JOBS, Run, scripted_jobs, sweep_leg
from eval_core._release.matrix import Leg, not_cleared_matrix, unavailable_reason
from eval_core._release.options import SweepOptions, validate
from eval_core._release.render import render_text, render_verdict
from eval_core._release.written import check_outputs, junit_files, write_outputs
from eval_core._running.forked import ForkExecutor, unforkable
from eval_core._running.progress import Progress
from eval_core._running.runner import SelectionError, plan
from eval_core._running.scorecard import encode_json, not_cleared
from eval_core._util.entrypoints import version
from eval_core._util.provenance import Provenance, tree_commit
from eval_core._util.redaction import Redactor, credentials_in
from eval_core._util.safe_text import clean
from eval_core._util.stopping import Stopping

if TYPE_CHECKING:
    from eval_core._plugins.host import Host
    from eval_core._plugins.judge import Judge
    from eval_core._plugins.model_source import ModelLeg, ModelSource
    from eval_core._plugins.plugin_set import PluginSet

__all__ = [  # the gate's parts, importable from here as before they moved
    "INTERRUPTED",
    "SCRIPTED_JOBS",
    "SweepOptions",
    "compare",
    "scripted_jobs",
    "sweep",
    "validate",
]

INTERRUPTED = 130  # SIGINT or SIGTERM before the first Trial: no Scorecard to print


def _legs(options: SweepOptions, source: ModelSource | None) -> list[Run]:
    """Each model's leg from the model source; a preflight failure refuses one model alone,
    and marks a Matrix leg unavailable."""
    if not options.models:
        return [Run("scripted", None)]
    from eval_core._plugins.model_source import ModelUnavailable

    if source is None:
        raise Refused(
            f"--model {','.join(options.models)}: no model source is installed (a plug-in "
            "providing eval_models, such as eval-bindings); without --model the scripted "
            "binding runs"
        )
    runs: list[Run] = []
    try:
        for name in options.models:
            try:
                runs.append(Run(name, source.open_leg(options.models_file, name)))
            except ModelUnavailable as exc:
                if len(options.models) == 1:
                    raise Refused(str(exc)) from None
                runs.append(Run(name, None, unavailable=str(exc)))
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
    found = plugins(options.corpus)
    runs = _legs(options, found.model_source)
    given = [s for r in runs if r.leg is not None for s in r.leg.secrets]
    given += [s for option in options.host_options for s in credentials_in(option)]
    redactor = Redactor(given)
    elsewhere: Executor | None = None
    try:
        if options.executor is not None:
            try:
                elsewhere = _executor(options.executor, options.address)
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


def _executor(name: str, address: str | None) -> Executor:
    """``fork`` is the core's own (:mod:`eval_core._running.forked`); others are plug-ins."""
    if name == "fork":
        return ForkExecutor(address)
    return executor(name, address)


def _supervisor(found: PluginSet, host: Host) -> Executor | None:
    """The forked children a Host that runs the team's code is swept on without ``--executor``
    (:func:`~eval_core._running.forked.supervises`): there its code cannot end or hang the
    Sweep, nor set its exit code. ``None``: the Trials run in this process."""
    import os

    from eval_core._plugins.host import agents_owned
    from eval_core._running.forked import supervises

    factory = found.hosts.get(host.name)
    if not hasattr(os, "fork") or factory is None or not supervises(host, agents_owned(factory)):
        return None
    supervisor = ForkExecutor(None, supervising=True)
    supervisor.host = host
    return supervisor


def _sweep(
    options: SweepOptions,
    found: PluginSet,
    runs: list[Run],
    redactor: Redactor,
    stopping: Stopping,
    out: TextIO,
    err: TextIO,
    elsewhere: Executor | None = None,
) -> int:
    judge = _judge(found.model_source, [r.leg for r in runs if r.leg is not None], err)
    if judge is not None:
        redactor = redactor.knowing(getattr(judge, "secrets", ()))
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
                    project=options.project,
                )
                redactor = redactor.knowing(
                    [s for k, v in opened.host_options.items() for s in credentials_in(f"{k}={v}")]
                )
                provenance = Provenance(
                    tree_commit(
                        opened.corpus.directory, (options.outputs_dir, options.baselines_dir)
                    ),
                    _harness(found, options.host),
                )
                try:
                    trials = plan(opened.corpus, options.cases, options.repeat)
                except SelectionError as exc:
                    raise Refused(str(exc)) from None
                check_outputs(options, opened.corpus.suite, runs, opened.corpus.directory)
        except KeyboardInterrupt:
            raise Refused(
                f"eval: interrupted by {stopping.name or 'SIGINT'} before the first Trial: "
                "no Scorecard",
                INTERRUPTED,
            ) from None
        progress = Progress(stream=err, quiet=options.quiet)
        if elsewhere is None and judge is None:
            elsewhere = _supervisor(found, opened.host)
        elif isinstance(elsewhere, ForkExecutor):
            reason = unforkable(opened.host)
            if reason is not None:
                raise Refused(
                    f"--executor fork refused: the Host {opened.host.name!r} cannot run in a "
                    f"forked worker: {reason}; sweep without --executor fork"
                )
            elsewhere.host = opened.host  # the children inherit the Sweep's Host as it is
        interrupted = False
        for run in runs:
            if run.unavailable is not None:
                continue
            if interrupted:
                run.unavailable = "not run: the Matrix was interrupted"
                continue
            run.card = sweep_leg(
                options,
                opened,
                run,
                len(trials),
                provenance,
                progress,
                redactor,
                stopping,
                elsewhere,
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
            gate(options, run, provenance.commit, redactor)
    code = _report(options, opened, runs, redactor, out, err)
    failures = [f for run in runs for f in run.write_failures]
    files = junit_files(opened.corpus, options.root) if options.junit_xml and opened else {}
    failures.extend(write_outputs(options, runs, trials, redactor, files))
    for failure in failures:
        err.write(clean(redactor.scrub_text(failure)) + "\n")
    err.flush()
    return REFUSED if failures else code


def _harness(found: PluginSet, host: str) -> dict[str, str]:
    """The versions of what ran the Sweep besides the kinds' and fields' plug-ins (the
    Scorecard lists those): the core, the Host's distribution, the model source's."""
    names = ["eval-core"]
    owner = found.host_owner.get(host)
    if owner is not None:
        names.append(owner.partition(":")[0])
    source = found.model_source_owner
    if source is not None:
        names.append(source.distribution)
    return {name: version(name) or "unknown" for name in dict.fromkeys(names)}


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


def _report(
    options: SweepOptions,
    opened: Opened | None,
    runs: Sequence[Run],
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
