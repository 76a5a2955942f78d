"""What a Sweep writes besides stdout: --save, --save-dir, the trial logs, and a gate's files.

Every path is checked before the first Trial, so a typo costs nothing; the files are written
after the Scorecard is on stdout, so a write that fails never loses the Sweep.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

from eval_core._loading.corpus import corpus_root
from eval_core._loading.opening import Refused
from eval_core._plugins.commands import CANONICAL
from eval_core._recording.transcript import pack_path
from eval_core._running.scorecard import encode_json
from eval_core._sweeping.gating import Written
from eval_core._sweeping.leg import Run, trial_log_path
from eval_core._sweeping.options import SweepOptions
from eval_core._util import outputs
from eval_core._util.atomic import write_atomic
from eval_core._util.redaction import Redactor


def check_outputs(
    options: SweepOptions, suite: str, runs: Sequence[Run], corpus: Path | None = None
) -> None:
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
            run.log_path = trial_log_path(options, suite, run.name)
            if options.resume is not None:
                inputs.append(("the trial log --resume continues", run.log_path))
            else:
                flag = "--log" if options.log is not None else "the trial log"
                planned.append(outputs.Output(flag, run.log_path, fresh=True))
                planned.append(
                    outputs.Output(f"{flag}'s transcripts", pack_path(run.log_path), fresh=True)
                )
        trees = [] if corpus is None else [("the Corpus", corpus)]
        if corpus is not None and (root := corpus_root(corpus)) != corpus:
            trees.append(("the Corpus", root))  # red-team/'s Soul and lock live beside it
        outputs.check_all(planned, inputs, options.root, trees, options.baselines_dir)
    except outputs.OutputRefused as exc:
        raise Refused(f"output refused: {exc}") from None


def write_outputs(
    options: SweepOptions,
    runs: Sequence[Run],
    redactor: Redactor,
    gated: Sequence[Written] = (),
) -> list[str]:
    """Write ``--save``/``--save-dir`` and the gate plug-ins' files (``gated``, such as
    ``--junit-xml``); each failure as one line (after the Scorecard is on stdout: a failed
    write never loses the Sweep)."""
    cards = [r.card for r in runs if r.card is not None]
    writes: list[Written] = []
    if options.save is not None and cards:
        writes.append(("--save", options.save, partial(encode_json, cards[0])))
    if options.save_dir is not None:
        for run in runs:
            if run.card is not None:
                path = options.save_dir / f"{run.name}.json"
                writes.append(("--save-dir", path, partial(encode_json, run.card)))
    writes.extend(gated)
    failures: list[str] = []
    for flag, path, render in writes:
        try:
            write_atomic(path, redactor.scrub_bytes(render()))
        except OSError as exc:
            failures.append(f"eval: {flag} {path} could not be written: {exc.strerror or exc}")
    return failures
