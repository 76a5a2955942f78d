"""The flags of a Sweep, and the combinations of them refused before anything runs."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import msgspec

from eval_core._loading.opening import Refused
from eval_core._plugins.commands import CANONICAL
from eval_core._util.limits import MAX_JOBS, MAX_REPEAT
from eval_core._util.project import OUTPUTS, Project


class SweepOptions(msgspec.Struct, frozen=True):
    corpus: Path = Path("corpus")
    cases: tuple[str, ...] = ()
    repeat: int = 1
    output_format: str = "text"
    save: Path | None = None
    save_dir: Path | None = None
    junit_xml: Path | None = None
    log: Path | None = None
    resume: Path | None = None
    rerun_errored: bool = False
    """With ``resume``: run again the Trials the log records as vendor-errored (``model_*``)."""
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
    """The project's root (:mod:`eval_core._util.project`): the outputs land under it."""
    baselines: Path | None = None
    """The Baselines folder; ``None``: ``baselines/`` under the root."""
    outputs: Path | None = None
    """The outputs folder (trial logs in its ``trials/``); ``None``: ``scorecards/`` under the
    root."""
    project: Project | None = None
    """The settings the command found, for the Host's options from ``[tool.eval]``."""

    @property
    def baselines_dir(self) -> Path:
        return self.baselines if self.baselines is not None else self.root / "baselines"

    @property
    def outputs_dir(self) -> Path:
        return self.outputs if self.outputs is not None else self.root / OUTPUTS


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
        (
            options.rerun_errored and options.resume is None,
            "--rerun-errored reruns a trial log's vendor-errored Trials: give --resume LOG",
        ),
        (
            options.promote and options.unlocked,
            "--promote is refused with --unlocked: a Baseline is made only with the plug-ins "
            "eval.lock pins (run eval lock, commit, then promote)",
        ),
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
        if isinstance(value, float) and value < sys.float_info.min:  # subnormal: no spend
            raise Refused(  # compares as that number, and sums lose it: never a real ceiling
                f"{flag} {value!r} is subnormal (below {sys.float_info.min!r}): "
                "not a ceiling a spend can be compared with; give a normal number > 0"
            )
    if options.models and options.max_tokens is None and options.max_tokens_per_trial is None:
        raise Refused(
            f"--model {','.join(options.models)} is a real model: pass a token ceiling, "
            "--max-tokens N or --max-tokens-per-trial N"
        )
