"""``eval record``, added to the ``eval`` command line by the commands hook.

Light on import (``eval --help`` loads this module): the work is imported when it runs. Exit
codes follow the core's: 0 every Case asked for was recorded (or nothing needed it), 1 some
were not (a Trial that errored, or failed without ``--allow-failed``: each said), 2 refused
(bad flags, a log that cannot be recorded from, a recorded Case that would not load), never a
traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core.commands import CommandRefused, Commands, hookimpl
from eval_core.commands import path_argument as path

if TYPE_CHECKING:
    import argparse

DESCRIPTION = """Record a real model's run into Case files: each Case's script (the model's
replies), what the model was shown when it answered (recorded: the Tools offered and digests of
their schemas and of the system prompt, the message count per request), and with
--tool-results the results its Tools returned. The Case then replays free on the scripted
binding, and every replay notes drift when the runtime shows the model something else.

Which Cases: --case ID (repeatable); else with --stale the recorded Cases whose replay drifts
(re-recorded, the diff of each script printed); else the Cases with no script yet. With --model
it runs them as eval sweep --model does (the same pins, token ceiling, spend rules; its
Scorecard printed, its trial log kept); with --from-log LOG it records a saved real-model
Sweep's Trials, with no model call. Only a Trial that passed is recorded, unless
--allow-failed (the failed Expectations are printed); an errored Trial never. A recorded Case
is checked by the loader (Tool names, grounding, the script's rules) before it is written;
the rest of the file is unchanged (JSON keeps its key order and indentation, YAML its
comments). Exit 0 all recorded, 1 some not recorded, 2 refused."""


def record(args: argparse.Namespace) -> int:
    from eval_record.live import record as run
    from eval_record.record import RecordRefused

    try:
        return run(args)
    except RecordRefused as exc:
        raise CommandRefused(str(exc), exc.code) from None


@hookimpl
def eval_commands(commands: Commands) -> None:
    parser = commands.add(
        "record",
        help="Record a real model's run into Case files as their scripts (record once, "
        "replay forever).",
        description=DESCRIPTION,
        run=record,
    )
    parser.add_argument(
        "corpus",
        nargs="?",
        type=path,
        metavar="CORPUS",
        help="The Corpus directory; default: corpus in [tool.eval], else corpus/ at the "
        "project's root.",
    )
    parser.add_argument(
        "--case", action="append", metavar="ID", help="A Case to record (repeatable)."
    )
    parser.add_argument(
        "--stale",
        action="store_true",
        help="Re-record the recorded Cases whose replay drifts (eval check --drift lists them).",
    )
    parser.add_argument(
        "--from-log",
        type=path,
        metavar="LOG",
        help="Record from a saved real-model Sweep's trial log, with no model call.",
    )
    parser.add_argument(
        "--allow-failed",
        action="store_true",
        help="Record a Trial that failed when none passed (its failed Expectations printed).",
    )
    parser.add_argument(
        "--tool-results",
        action="store_true",
        help="Also write what the Case's Tools returned as its toolResults.",
    )
    parser.add_argument(
        "--model", metavar="NAME", help="The pinned real model to record (one pin's name)."
    )
    parser.add_argument(
        "--models",
        type=path,
        metavar="PATH",
        help="The model pins file; default: models in [tool.eval], else models.toml.",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="Stop before the next Trial once input+output tokens reach N.",
    )
    parser.add_argument(
        "--max-tokens-per-trial",
        type=int,
        metavar="N",
        help="The ceiling: N tokens per planned Trial.",
    )
    parser.add_argument(
        "--max-spend",
        type=float,
        metavar="USD",
        help="Stop before the next Trial once the priced spend reaches USD.",
    )
    parser.add_argument("--jobs", type=int, metavar="N", help="Run N Trials at once.")
    parser.add_argument(
        "--host", metavar="NAME", help="The Host by name; default: host in [tool.eval]."
    )
    parser.add_argument(
        "--host-option",
        action="append",
        metavar="KEY=VALUE",
        help="A setting the Host reads (repeatable).",
    )
    parser.add_argument(
        "--unlocked",
        action="store_true",
        help="Run even if the installed plug-ins differ from eval.lock.",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="No progress on stderr while the model runs."
    )
