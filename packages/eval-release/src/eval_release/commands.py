"""``eval compare``, added to the ``eval`` command line by the commands hook.

Light on import (``eval --help`` loads this module): the comparison is imported when it runs.
Exit 0 nothing regressed, 1 some Case regressed, 2 a file refused, 3 the comparison refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core.commands import Commands
from eval_core.commands import path_argument as path
from eval_core.kinds import hookimpl
from eval_core.records import clean

if TYPE_CHECKING:
    import argparse


def compare(args: argparse.Namespace) -> int:
    """A refusal is its message on stderr, every line of it (a refused comparison lists the
    Cases that differ, one a line), and its exit code."""
    import sys

    from eval_core.commands import Refused
    from eval_release.compare import compare as run

    try:
        return run(args.before, args.after)
    except Refused as exc:
        sys.stderr.write(clean(str(exc).rstrip("\n")) + "\n")
        return exc.code


@hookimpl
def eval_commands(commands: Commands) -> None:
    parser = commands.add(
        "compare",
        help="The delta between two saved Scorecards (or Baselines).",
        description="Print the delta between two saved Scorecards (or Baselines); refused "
        "across models, or across Corpora, naming the Cases added, removed and changed and the "
        "plug-in differences (exit 3).",
        run=compare,
    )
    parser.add_argument(
        "before", type=path, metavar="BEFORE", help="The earlier Scorecard (or Baseline) JSON."
    )
    parser.add_argument(
        "after", type=path, metavar="AFTER", help="The later Scorecard (or Baseline) JSON."
    )
