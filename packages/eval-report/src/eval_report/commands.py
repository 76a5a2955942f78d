"""`eval report` and `eval rescore`, added to the `eval` command line by the commands hook.

Light on import (`eval --help` loads this module): the work is imported inside each command.
Exit codes follow the core's: 0 done (for rescore: the re-scored Sweep clears), 1 (rescore)
the re-scored Sweep does not clear, 2 refused input or an output path, 3 a comparison refused
(different Corpora or models), never a traceback.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from eval_core.commands import CANONICAL, CommandRefused, Commands, hookimpl
from eval_core.commands import path_argument as path

if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def report(args: argparse.Namespace) -> int:
    from eval_report.html import write_report
    from eval_report.saved import Refused

    baselines: list[Path] = list(args.baseline or ())
    if any(str(path) == CANONICAL for path in baselines):  # the sweep's "no PATH" spelling
        raise CommandRefused(
            "eval report: --baseline needs the PATH of a Baseline or a saved Scorecard"
        )
    output: Path = args.output if args.output is not None else _default_output()
    try:
        written = write_report(list(args.inputs), output, baselines)
    except Refused as exc:
        raise CommandRefused(str(exc), exc.code) from None
    print(
        f"wrote {output}  ({written.cases} Cases, {written.trials} Trials, {written.size:,} bytes)"
    )
    return 0


def _default_output() -> Path:
    """``report.html`` in the project's outputs folder (``scorecards/`` at its root unless
    ``[tool.eval] outputs`` names another), beside the trial logs."""
    from eval_core.commands import SettingsRefused, find_project

    try:
        return find_project().path("outputs") / "report.html"
    except SettingsRefused as exc:
        raise CommandRefused(f"settings refused: {exc}") from None


def rescore(args: argparse.Namespace) -> int:
    from eval_core.commands import clean
    from eval_report.rescore import render
    from eval_report.rescore import rescore as run
    from eval_report.saved import Refused

    try:
        result = run(args.log)
    except Refused as exc:
        raise CommandRefused(str(exc), exc.code) from None
    sys.stdout.write(clean(render(result, args.log)))
    return 1 if result.reasons() else 0


@hookimpl
def eval_commands(commands: Commands) -> None:
    parser = commands.add(
        "report",
        help="Write one self-contained HTML report of one Sweep or a Matrix.",
        description="Write one self-contained HTML report (no server, no network) of one "
        "Sweep or a Matrix: the gate, the Cases (filterable), each Trial's transcript, the "
        "delta against a Baseline.",
        run=report,
    )
    parser.add_argument(
        "inputs",
        nargs="+",
        type=path,
        metavar="INPUT",
        help="Trial logs (with their transcripts) and/or saved Scorecards: one per model; a "
        "log and the Scorecard of the same Sweep are read as one.",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=path,
        metavar="PATH",
        help="Where to write the HTML file (default: report.html in the project's outputs "
        "folder, scorecards/ at its root, beside the trial logs: a Sweep's provenance never "
        "counts that folder as a change, so a report never makes the tree dirty).",
    )
    parser.add_argument(
        "--baseline",
        action="append",
        type=path,
        metavar="PATH",
        help="A Baseline (or Scorecard) to show the delta against (repeatable).",
    )
    parser = commands.add(
        "rescore",
        help="Re-score a saved Sweep's Evidence with the installed plug-ins.",
        description="Re-score a saved Sweep's recorded Evidence with the installed plug-ins "
        "(no model, no Host) and print which verdicts change and why, then whether the "
        "re-scored Sweep clears. Exit 0 it clears (whether or not a verdict changed), 1 it "
        "does not clear, 2 refused (an incompatible record schema is named).",
        run=rescore,
    )
    parser.add_argument(
        "log", type=path, metavar="LOG", help="The trial log of the Sweep to re-score."
    )
