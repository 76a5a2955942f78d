"""The `eval` command line: flags in, a refusal or an exit code out. Imports are lazy so
`eval --help` answers at once: the core's commands are :mod:`~eval_core._cli.flags` (their
flags) and :mod:`~eval_core._cli.core_commands` (what they do), the work lives in
:mod:`eval_core._release.release` and friends. The parser is the standard library's argparse
(:mod:`eval_core._plugins.commands`); command plug-ins add their sub-commands to it before the
arguments are parsed.

Exit codes: 0 cleared (or the command succeeded); 1 not cleared; 2 refused input or bad usage
(a malformed Corpus, a broken or unpinned plug-in set, an unknown flag, a limit, an output path;
every one a single line on stderr, never a traceback), or an output that failed to write after
the Sweep; 3 a comparison refused (different corpusHash or model: no delta is computed); 130
interrupted before the first Trial.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from eval_core._cli.exits import CLEARED, COMPARISON_REFUSED, EXIT_CODES, INTERRUPTED, NOT_CLEARED
from eval_core._cli.flags import add_core_commands
from eval_core._plugins.commands import (
    REFUSED,
    Command,
    CommandClash,
    CommandRefused,
    Commands,
    Parser,
    one_line,
)

if TYPE_CHECKING:
    import argparse

__all__ = [
    "CLEARED",
    "COMMANDS",
    "COMPARISON_REFUSED",
    "EXIT_CODES",
    "INTERRUPTED",
    "NOT_CLEARED",
    "TRACEBACK_HELP",
    "Command",
    "add_commands",
    "invoke",
    "main",
    "parser",
]

TRACEBACK_HELP = (
    "When plug-in code raises, also print its full traceback on stderr (for plug-in authors; "
    "the refusal or errored Trial is unchanged). Any position."
)


def parser() -> tuple[Parser, dict[str, Command], Commands]:
    """``eval``'s parser with the core's commands, the table of every command by name, and
    the registry a command plug-in adds to (see :func:`add_commands`)."""
    top = Parser(
        prog="eval",
        description="Offline eval harness for tool-using LLM agents.",
        epilog=EXIT_CODES,
    )
    top.add_argument("--traceback", action="store_true", help=TRACEBACK_HELP)
    subparsers = top.add_subparsers(
        title="commands", dest="command", metavar="COMMAND", prog="eval", required=True
    )
    table: dict[str, Command] = {}
    commands = Commands(subparsers, table)
    add_core_commands(commands)
    return top, table, commands


COMMANDS = "eval.commands"


def add_commands(commands: Commands) -> None:
    """Let each command plug-in (entry-point group ``eval.commands``) add its sub-commands;
    a broken one is one line naming its distribution and entry point, exit 2. Its hook is
    guarded like a family's (:mod:`eval_core._util.guard`): one that raises, or a hookimpl no
    hookspec declares, is one line naming the distribution, its version and the line; a
    command name that exists already is one line naming both distributions."""
    import pluggy

    from eval_core._plugins import hookspecs
    from eval_core._util.entrypoints import entry_points

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    versions: dict[str, tuple[str, str]] = {}
    for ep in entry_points(COMMANDS):
        dist = ep.distribution
        name = f"{dist}:{ep.name}"
        versions[name] = (dist, ep.version)
        try:
            plugin = ep.load()
        except Exception as exc:
            _fail(
                f"eval: command plug-in {dist} is broken: entry point {ep.name!r} ({ep.value}) "
                f"failed to load: {type(exc).__name__}: {exc}"
            )
        try:
            manager.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:  # a hookimpl's arguments the hook lacks
            _fail(
                f"eval: command plug-in {dist} {ep.version} is refused: {exc} (the hook is "
                "eval_commands(commands))"
            )
    for hook in vars(manager.hook).values():  # pluggy's check_pending, said per plug-in
        if isinstance(hook, pluggy.HookCaller) and not hook.has_spec():
            impl = hook.get_hookimpls()[0]
            dist, version = versions.get(impl.plugin_name, (impl.plugin_name, "(no version)"))
            _fail(
                f"eval: command plug-in {dist} {version} is refused: it implements "
                f"{hook.name!r}, which is not a hook (eval_commands is)"
            )
    for impl in manager.hook.eval_commands.get_hookimpls():
        dist, version = versions.get(impl.plugin_name, (impl.plugin_name, "(no version)"))
        theirs = commands.by(dist, version, impl.plugin)
        try:
            impl.function(**{arg: theirs for arg in impl.argnames})
        except CommandClash as exc:
            _fail(
                f"eval: command plug-in {dist} {version} is refused: it adds the command "
                f"{exc.name!r}, which {exc.owner} adds already"
            )
        except Exception as exc:
            from eval_core._util.code import code_roots
            from eval_core._util.guard import Origin, fault

            origin = Origin(dist, version, code_roots(impl.plugin))
            _fail(f"eval: {fault(origin, 'eval_commands', exc, impl.function)}")


def _fail(line: str) -> NoReturn:
    sys.stderr.write(one_line(line) + "\n")
    raise SystemExit(REFUSED)


def _run(command: Command, args: argparse.Namespace) -> int:
    """The command's exit code; a plug-in command that raises is one line naming it."""
    try:
        code = command.run(args)
    except CommandRefused as exc:
        sys.stderr.write(one_line(str(exc)) + "\n")
        return exc.code
    except Exception as exc:
        if command.plugin is None:
            raise  # the core's own bug: its traceback is the report
        from eval_core._util.code import code_roots
        from eval_core._util.guard import Origin, fault

        origin = Origin(command.owner, command.version, code_roots(command.plugin))
        _fail(f"eval: {fault(origin, f'the command {command.name!r}', exc, command.run)}")
    if code is None:
        return CLEARED
    if isinstance(code, bool) or not isinstance(code, int):
        _fail(
            f"eval: plug-in {command.label}: the command {command.name!r} returned {code!r}, "
            "not an exit code (an int)"
        )
    return code


def invoke(argv: Sequence[str]) -> int:
    """Run ``eval ARGV`` in this process and return its exit code (what :func:`main` exits
    with): usage errors and refusals are already on stderr, one line each."""
    try:
        return _invoke(list(argv))
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else REFUSED)
    except KeyboardInterrupt:
        sys.stderr.write("eval: interrupted\n")
        return INTERRUPTED


def _invoke(argv: list[str]) -> int:
    if "--traceback" in argv:  # any position; before command plug-ins load, for their faults
        from eval_core._util.guard import show_tracebacks

        show_tracebacks()
        argv = [arg for arg in argv if arg != "--traceback"]
    top, table, commands = parser()
    add_commands(commands)
    if not argv:
        top.print_help()
        return REFUSED
    args, extras = top.parse_known_args(argv)
    command = table[args.command]
    if extras:
        head = argv[: argv.index(args.command)]
        owner = top if any(extra in head for extra in extras) else command.parser
        owner.error(f"unrecognized arguments: {' '.join(extras)}")
    return _run(command, args)


def main() -> NoReturn:
    """Run the CLI; a usage mistake (unknown flag, bad value) is one line on stderr, exit 2."""
    raise SystemExit(invoke(sys.argv[1:]))
