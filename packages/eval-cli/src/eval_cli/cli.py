"""The `eval` command line: flags in, a refusal or an exit code out. The core's commands are
:mod:`~eval_cli.flags` (their flags) and :mod:`~eval_cli.core_commands` (what they do); the
work lives in eval-core (its public API, :mod:`eval_core.commands`), imported only by the
command that runs. Command plug-ins add their sub-commands to the same registry
(``eval_core.commands.add_commands``, the ``eval_commands`` hook) before the arguments are
parsed; typer parses them all (:mod:`~eval_cli.app`), and a usage mistake is one line
(:mod:`~eval_cli.usage`).

Exit codes: 0 cleared (or the command succeeded); 1 not cleared; 2 refused input or bad usage
(a malformed Corpus, a broken or unpinned plug-in set, an unknown flag, a limit, an output path;
every one a single line on stderr, never a traceback), or an output that failed to write after
the Sweep; 3 a comparison refused (different corpusHash or model: no delta is computed); 130
interrupted before the first Trial.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from eval_cli import help_cache
from eval_cli.exits import CLEARED, COMPARISON_REFUSED, EXIT_CODES, INTERRUPTED, NOT_CLEARED
from eval_cli.flags import add_core_commands
from eval_core.commands import (
    REFUSED,
    Command,
    Commands,
    add_commands,
    one_line,
    run_command,
)

__all__ = [
    "CLEARED",
    "COMPARISON_REFUSED",
    "EXIT_CODES",
    "INTERRUPTED",
    "NOT_CLEARED",
    "Command",
    "add_commands",
    "invoke",
    "main",
    "registry",
]


def registry() -> Commands:
    """The registry with the core's commands, for command plug-ins to add theirs to (see
    :func:`eval_core.commands.add_commands`); its ``table`` is every command by name, in
    ``eval --help``'s order."""
    commands = Commands()
    add_core_commands(commands)
    return commands


def invoke(argv: Sequence[str]) -> int:
    """Run ``eval ARGV`` in this process and return its exit code (what :func:`main` exits
    with): usage errors and refusals are already on stderr, one line each."""
    from eval_core.commands import forget_cache_use

    forget_cache_use()  # the caches a Scorecard names are this command's
    try:
        return _invoke(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else REFUSED)
    except KeyboardInterrupt:
        sys.stderr.write("eval: interrupted\n")
        return INTERRUPTED


def _invoke(argv: list[str]) -> int:
    empty = _empty_value(argv)
    if empty is not None:
        sys.stderr.write(f"eval: {empty}\n")
        return REFUSED
    if "--traceback" in argv:  # any position; before command plug-ins load, for their faults
        from eval_core.commands import show_tracebacks

        show_tracebacks()
        argv = [arg for arg in argv if arg != "--traceback"]
    commands = _commands_for(argv)
    ran = _plain(commands, argv)
    if ran is not None:
        return ran
    from typer import Abort

    from eval_cli.app import build
    from eval_cli.usage import is_click_error, is_usage_error, line

    helping = argv in help_cache.HELP  # rendered at the width the kept text's key names
    app = build(commands.table, help_cache.width() if helping else None)
    if "_EVAL_COMPLETE" in os.environ:  # shell completion: bounded, never a traceback
        return _complete(app)
    if not argv:  # the help, but the exit code of a usage mistake
        app.main(["--help"], prog_name="eval", standalone_mode=False)
        return REFUSED
    try:
        if helping:  # the text is kept for the next `eval --help`
            return _help(app, argv)
        parsed = app.main(argv, prog_name="eval", standalone_mode=False)
    except Abort:
        sys.stderr.write("eval: interrupted\n")
        return INTERRUPTED
    except OSError as exc:  # --install-completion under a HOME that cannot be written
        where = f" {exc.filename}" if exc.filename else ""
        sys.stderr.write(one_line(f"eval: cannot write{where}: {exc.strerror or exc}") + "\n")
        return REFUSED
    except Exception as exc:  # click's, which typer raises but does not export (see usage)
        if is_usage_error(exc):
            sys.stderr.write(line(exc) + "\n")
            return REFUSED
        if not is_click_error(exc):
            raise
        sys.stderr.write(one_line(f"eval: {exc.format_message()}") + "\n")  # type: ignore[attr-defined]
        return int(exc.exit_code)  # type: ignore[attr-defined]
    if isinstance(parsed, tuple):  # a command and its arguments, parsed: run it now
        command, args = parsed
        return run_command(command, args)
    return parsed if isinstance(parsed, int) else CLEARED  # --help, completion: their code


def _commands_for(argv: list[str]) -> Commands:
    """The registry ``argv`` needs: the core's commands, and the command plug-ins' unless
    ``argv`` runs a core command (they only add commands, so it runs without their code)."""
    commands = registry()
    if not argv or argv[0] not in commands.table or "_EVAL_COMPLETE" in os.environ:
        add_commands(commands)
    return commands


def _plain(commands: Commands, argv: list[str]) -> int | None:
    """The command's exit code when its words are plain (:mod:`~eval_cli.quick`: parsed as
    typer parses them, without importing typer), else ``None``: typer parses them."""
    command = commands.table.get(argv[0]) if argv else None
    if command is None or "_EVAL_COMPLETE" in os.environ:
        return None
    from eval_cli.quick import parse

    parsed = parse(command, argv[1:])
    return None if parsed is None else run_command(command, parsed)


def _complete(app: Any) -> int:
    """Shell completion, held to what the shell may send: a ``COMP_CWORD`` that is no number
    or points past the words completes the last word; anything completion cannot answer is
    no completion (exit 1, nothing printed: the shell shows what it is given)."""
    words = os.environ.get("COMP_WORDS", "").split()
    try:
        at = int(os.environ.get("COMP_CWORD", ""))
    except ValueError:
        at = -1
    if not 0 <= at <= len(words):
        os.environ["COMP_CWORD"] = str(max(len(words) - 1, 0))
    try:
        app.main([], prog_name="eval", standalone_mode=False)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 0
    except Exception:
        return 1
    return 0


def _empty_value(argv: list[str]) -> str | None:
    """Why an empty value is refused (``--save=``, ``--save ""``, a Corpus ``""``), or ``None``:
    an empty path reads as ``.`` and an empty name as nothing, never what was meant."""
    for at, arg in enumerate(argv):
        if arg == "--":
            return None
        if arg.startswith("--") and arg.endswith("=") and len(arg) > 3:
            return f"{arg[:-1]}: an empty value; give it one (or leave {arg[:-1]} out)"
        if arg == "" or not arg.strip():
            before = argv[at - 1] if at and argv[at - 1].startswith("-") else None
            what = f"{before}: an empty value" if before else "an empty argument"
            return f"{what}; give it one"
    return None


def _help(app: Any, argv: list[str]) -> int:
    """Print ``eval --help`` and keep the text (:mod:`~eval_cli.help_cache`); ``app``
    renders it at :func:`~eval_cli.help_cache.width` columns, the width its key names."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):  # click writes to the sys.stdout of the moment
        app.main(argv, prog_name="eval", standalone_mode=False)
    sys.stdout.write(out.getvalue())
    help_cache.keep(argv, out.getvalue(), help_cache.width())
    return CLEARED


def main(guarded: tuple[Any, Any] | None = None) -> NoReturn:
    """Run the CLI; a usage mistake (unknown flag, bad value) is one line on stderr, exit 2.
    The cyclic collector is paused while the command starts (``eval_core.commands``'
    ``pause_collector``).
    stdout and stderr are guarded (:mod:`~eval_cli.streams`): one that cannot be written
    is one line and exit 2, never a traceback."""
    from eval_cli import streams
    from eval_core.commands import pause_collector

    guarded = guarded if guarded is not None else streams.guard()
    pause_collector()
    raise SystemExit(streams.finish(invoke(sys.argv[1:]), guarded))
