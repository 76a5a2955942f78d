"""The core's sub-commands and their flags, in the order `eval --help` lists them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_cli.core_commands import (
    run_check,
    run_hash,
    run_lock,
    run_plugins,
    run_schema,
    run_sweep,
)
from eval_core.commands import CANONICAL, Commands, default_log_help
from eval_core.commands import path_argument as path

if TYPE_CHECKING:
    from eval_core.commands import Arguments


DEFAULT_HOST = "agent-runtime"


def _corpus_argument(parser: Arguments) -> None:
    parser.add_argument(
        "corpus",
        nargs="?",
        type=path,
        metavar="CORPUS",
        help="The Corpus directory (red-team: corpus/red-team); default: corpus in the "
        "project's [tool.eval] settings, else corpus/ at the project's root (docs/settings.md).",
    )


def _host_option(parser: Arguments) -> None:
    parser.add_argument(
        "--host",
        metavar="NAME",
        help="The Host (system under test) by name; default: host in [tool.eval], else "
        f"{DEFAULT_HOST}.",
    )


def _unlocked_option(parser: Arguments) -> None:
    parser.add_argument(
        "--unlocked",
        action="store_true",
        help="Run even if the installed plug-ins differ from eval.lock.",
    )


SWEEP = """Run a Sweep and print the Scorecard on stdout; progress goes to stderr.

Without --model the Case scripts answer (free, deterministic). With --model a pinned real
model answers: a token ceiling is required; credentials, base-URL overrides and the Judge are
checked before the first Trial; the ceiling is checked before each Trial is launched (overrun
at most one Trial, or the N-1 in flight with --jobs N) and a stopped Sweep never clears.
Output paths are checked before the first Trial. Every Trial is appended to a trial log as it
finishes; Ctrl-C or SIGTERM ends the Sweep with a partial Scorecard marked aborted, and
--resume finishes it."""


def add_core_commands(commands: Commands) -> None:
    """The core's own sub-commands, in the order ``eval --help`` lists them."""
    check = commands.add(
        "check",
        help="Validate a Corpus; print its Cases per tier and its corpusHash.",
        description="Load and validate a Corpus; print its Cases per tier and its corpusHash. "
        "With --drift, also replay every Case whose script was recorded from a real model (eval "
        "record) on the scripted binding, free, and list those whose script is stale: the "
        "runtime now shows the model something else than when it was recorded (exit 1 when "
        "any is).",
        run=run_check,
    )
    _corpus_argument(check)
    _host_option(check)
    _unlocked_option(check)
    check.add_argument(
        "--drift",
        action="store_true",
        help="Replay the recorded Cases (free) and list those whose script is stale; exit 1 "
        "when any is.",
    )

    hash_ = commands.add(
        "hash", help="Print the corpusHash (sha256) of a Corpus, and nothing else.", run=run_hash
    )
    _corpus_argument(hash_)
    _host_option(hash_)

    plugins = commands.add(
        "plugins",
        help="List installed plug-ins; --check checks their contract, --kind NAME shows one kind.",
        description="List installed plug-ins: distribution, version, code fingerprint, kinds "
        "with their tiers, Case fields; with --check, whether each keeps the plug-in contract; "
        "with --kind NAME, the reference of one kind or Case field.",
        run=run_plugins,
    )
    plugins.add_argument(
        "--check",
        action="store_true",
        help="Check every installed kind and Case field against the plug-in contract "
        "(hypothesis properties, few examples, a fixed seed); exit 1 if one fails.",
    )
    plugins.add_argument(
        "--examples",
        type=int,
        default=10,
        metavar="N",
        help="Examples per kind with --check (1 to 1000).",
    )
    plugins.add_argument(
        "--corpus",
        type=path,
        metavar="PATH",
        help="Whose eval.lock --check compares schemas with (default: the project's Corpus).",
    )
    plugins.add_argument(
        "--kind",
        metavar="NAME",
        help="Print the reference of one Expectation kind or Case field (as JSON spells it): "
        "its fields, types, tiers, witness, grounding rule and an example (docs/kinds.md "
        "has them all).",
    )

    lock = commands.add(
        "lock",
        help="Pin the installed plug-in set in <corpus>/eval.lock.",
        description="Pin the installed plug-in set in <corpus>/eval.lock (refused when that "
        "set cannot load the Corpus, or its red-team suite).",
        run=run_lock,
    )
    _corpus_argument(lock)
    _host_option(lock)

    schema = commands.add(
        "schema",
        help="Print the JSON Schema of a Case for the installed plug-in set.",
        run=run_schema,
    )
    schema.add_argument(
        "-o", "--output", type=path, metavar="PATH", help="Write here instead of stdout."
    )

    sweep = commands.add(
        "sweep",
        help="Run a Sweep: the Scorecard on stdout, progress on stderr.",
        description=SWEEP,
        run=run_sweep,
    )
    _sweep_arguments(sweep)


def _sweep_arguments(sweep: Arguments) -> None:
    _corpus_argument(sweep)
    add = sweep.add_argument
    add("--case", action="append", metavar="ID", help="Run only this Case (repeatable).")
    add(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="Run every Case N times: the noise floor (1 to 1000).",
    )
    add(
        "--format",
        dest="output_format",
        default="text",
        metavar="text|json",
        help="Scorecard on stdout: text or json.",
    )
    add("--save", type=path, metavar="PATH", help="Write the Scorecard JSON here (atomic).")
    add("--save-dir", type=path, metavar="DIR", help="Write DIR/<model>.json per model.")
    add("--junit-xml", type=path, metavar="PATH", help="Write JUnit XML for CI here.")
    add(
        "--log",
        type=path,
        metavar="PATH",
        help=f"The trial log (JSON Lines); default {default_log_help()}.",
    )
    add(
        "--resume",
        type=path,
        metavar="LOG",
        help="Finish the Sweep this trial log began (same flags).",
    )
    add(
        "--rerun-errored",
        action="store_true",
        help="With --resume: also run again the Trials the log records as vendor-errored "
        "(model_*: the model's server failed, not the agent); their new lines are appended "
        "and replace the errored ones in the Scorecard, every other Trial is kept.",
    )
    add("-q", "--quiet", action="store_true", help="No progress on stderr.")
    add(
        "-v",
        "--verbose",
        action="store_true",
        help="List every Trial in the text Scorecard, not only failures. The [loop STATUS] "
        "after a Trial is how the runtime's tool loop ended (completed, failed, waiting...), "
        "not the verdict: PASS  c#1  [loop failed] passed a Case that expects the loop to fail.",
    )
    _host_option(sweep)
    add(
        "--host-option",
        action="append",
        metavar="KEY=VALUE",
        help="A setting the Host reads, passed to it as is (repeatable; it wins over the same "
        "key in [tool.eval]); see the Host's own documentation for its keys.",
    )
    _unlocked_option(sweep)
    add(
        "--model",
        metavar="NAME[,NAME...]",
        help="Pinned model(s) by name, comma-separated for a Matrix (a control, never a "
        "contest: legs run one after another); without it the free scripted binding.",
    )
    add(
        "--models",
        type=path,
        metavar="PATH",
        help="The model pins file; default: models in [tool.eval], else models.toml at the "
        "project's root.",
    )
    add(
        "--max-tokens",
        type=int,
        metavar="N",
        help="Stop before the next Trial once input+output tokens reach N.",
    )
    add(
        "--max-tokens-per-trial",
        type=int,
        metavar="N",
        help="A token ceiling of N x the Trials planned (exclusive with --max-tokens).",
    )
    add(
        "--max-spend",
        type=float,
        metavar="USD",
        help="Stop before the next Trial once the priced spend reaches USD.",
    )
    add(
        "--baseline",
        nargs="?",
        const=CANONICAL,
        metavar="PATH",
        help="Compare with the Baseline: <model>.json in the project's Baselines folder "
        "(baselines/ at its root; <corpus>/<model>.json there for a Corpus other than the "
        "project's own), or the PATH given.",
    )
    add(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="Run N Trials at once (default: the pin's max_concurrency for a real model; 1 on "
        "the scripted model). A ceiling then overruns by at most N-1 Trials in flight.",
    )
    add(
        "--executor",
        metavar="NAME",
        help="Run the Trials on an installed executor instead of this process: fork runs "
        "them on --jobs forked children (a framework Host's Trials run so without the flag: "
        "the team's code cannot end or hang the Sweep); ray (the eval-executor-ray package) "
        "runs them as Ray tasks, on a local Ray instance unless --address names a cluster. The "
        "trial log, --resume and the ceilings work the same.",
    )
    add(
        "--address",
        metavar="ADDRESS",
        help="The executor's cluster: for ray, auto (the running cluster), ray://HOST:10001 "
        "or HOST:PORT; without it a local instance is started.",
    )
    add(
        "--suite",
        default="one",
        metavar="all",
        help="all: sweep the Corpus, then its red-team suite (corpus/red-team), one exit "
        "code; without it, the Corpus given.",
    )
    add(
        "--promote",
        action="store_true",
        help="Make this Sweep the model's Baseline (clean tree, complete, unerrored, "
        "unregressed, real model only, the locked plug-ins: never with --unlocked; always "
        "the canonical path).",
    )
