"""`eval report` and `eval rescore`, added to the `eval` command line by the commands hook.

Light on import (`eval --help` loads this module): the work is imported inside each command.
Exit codes follow the core's: 0 done, 1 (rescore) some verdict changed, 2 refused input or
an output path, 3 a comparison refused (different Corpora or models), never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from eval_core.hookspecs import hookimpl


def _refuse(message: str, code: int = 2) -> NoReturn:
    from eval_core.safe_text import clean

    sys.stderr.write(clean(message.rstrip("\n")).replace("\n", " ") + "\n")
    raise typer.Exit(code)


def report(
    inputs: Annotated[
        list[Path],
        typer.Argument(
            help="Trial logs (with their transcripts) and/or saved Scorecards: one per model; "
            "a log and the Scorecard of the same Sweep are read as one."
        ),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write the HTML file.")
    ] = Path("report.html"),
    baseline: Annotated[
        list[Path] | None,
        typer.Option("--baseline", help="A Baseline (or Scorecard) to show the delta against."),
    ] = None,
) -> None:
    """Write one self-contained HTML report (no server, no network) of one Sweep or a Matrix:
    the gate, the Cases (filterable), each Trial's transcript, the delta against a Baseline."""
    from eval_core.release import CANONICAL
    from eval_report.html import write_report
    from eval_report.saved import Refused

    if any(str(path) == CANONICAL for path in baseline or ()):
        _refuse("eval report: --baseline needs the PATH of a Baseline or a saved Scorecard")
    try:
        written = write_report(list(inputs), output, list(baseline or ()))
    except Refused as exc:
        _refuse(str(exc), exc.code)
    typer.echo(
        f"wrote {output}  ({written.cases} Cases, {written.trials} Trials, {written.size:,} bytes)"
    )


def rescore(
    log: Annotated[Path, typer.Argument(help="The trial log of the Sweep to re-score.")],
) -> None:
    """Re-score a saved Sweep's recorded Evidence with the installed plug-ins (no model, no
    Host) and print which verdicts change and why. Exit 0 nothing changed, 1 some verdict
    changed, 2 refused (an incompatible record schema is named)."""
    from eval_core.safe_text import clean
    from eval_report.rescore import render
    from eval_report.rescore import rescore as run
    from eval_report.saved import Refused

    try:
        result = run(log)
    except Refused as exc:
        _refuse(str(exc), exc.code)
    sys.stdout.write(clean(render(result, log)))
    raise typer.Exit(1 if result.changed else 0)


@hookimpl
def eval_commands(app: typer.Typer) -> None:
    app.command("report")(report)
    app.command("rescore")(rescore)
