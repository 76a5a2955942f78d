"""The Sweep: a Corpus (or a Matrix: one leg per model) run Trial by Trial, then reported.

This is what `eval sweep` does once its flags are parsed. Legs (one per model) run strictly one
after another, each with the full ceiling. Each Trial is appended to a trial log as it finishes.
The Trials are planned once, before the first runs; a gate plug-in (eval-release: Baselines,
promotion, JUnit) judges each measured leg through the Sweep's hooks (:mod:`.gating`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from eval_core._loading.opening import REFUSED, Opened, Refused, host_options, open_corpus
from eval_core._plugins.executor import Executor, ExecutorRefused, executor
from eval_core._plugins.host_answers import closed
from eval_core._plugins.model_source import ModelRefused
from eval_core._running.forked import ForkExecutor, unforkable
from eval_core._running.progress import Progress
from eval_core._running.runner import SelectionError, plan
from eval_core._sweeping.gating import check_gated, gate, gated_outputs
from eval_core._sweeping.leg import Run, sweep_leg
from eval_core._sweeping.legs import open_legs
from eval_core._sweeping.matrix import unavailable_reason
from eval_core._sweeping.options import SweepOptions, validate
from eval_core._sweeping.report import report_sweep
from eval_core._sweeping.written import check_outputs, write_outputs
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

__all__ = [  # the Sweep's parts, importable from here as before they moved
    "INTERRUPTED",
    "SweepOptions",
    "sweep",
    "validate",
]

INTERRUPTED = 130  # SIGINT or SIGTERM before the first Trial: no Scorecard to print


def sweep(options: SweepOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run the Sweep; return the exit code (0 cleared, 1 not cleared, 2 an output could not be
    written, 3 a gate refused the comparison). SIGTERM is handled like Ctrl-C
    (:mod:`eval_core._util.stopping`).
    ``out`` and ``err`` default to the streams of the moment (stdout, stderr).
    """
    from eval_core._loading.opening import plugins

    out = out or sys.stdout
    err = err or sys.stderr
    validate(options)
    found = plugins(options.corpus)
    check_gated(options, found)
    runs = open_legs(options, found.model_source)
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
    unclosed: str | None = None
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
                trials,
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
            unclosed = closed(opened.host)  # removes the L3 tier's temporary directory
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
            gate(found, options, run, provenance.commit, redactor.scrub_bytes)
    code = report_sweep(options, opened, runs, redactor, out, err)
    failures = [f for run in runs for f in run.write_failures]
    if unclosed is not None:
        failures.append(unclosed)
    files, unnamed = gated_outputs(found, options, opened.corpus, runs, trials)
    failures.extend(unnamed)
    failures.extend(write_outputs(options, runs, redactor, files))
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
