"""The command plug-ins (entry-point group ``eval.commands``): their hooks loaded into a
:class:`~eval_core._plugins.commands.Commands` registry, and one of their commands run, each
guarded like a family's hook (:mod:`eval_core._util.guard`).

The plug-in contract is the core's, whoever parses the command line: the ``eval`` front-end
(the eval-cli package) builds the registry with the core's own commands, hands it to
:func:`add_commands`, parses the arguments and calls :func:`run_command`. A broken plug-in is
one line on stderr naming its distribution, and exit 2 (``SystemExit``), never a traceback.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from eval_core._plugins.commands import (
    REFUSED,
    Command,
    CommandClash,
    CommandRefused,
    Commands,
    one_line,
)

COMMANDS = "eval.commands"


def add_commands(commands: Commands) -> None:
    """Let each command plug-in (entry-point group ``eval.commands``) add its sub-commands;
    a broken one is one line naming its distribution and entry point, exit 2. Its hook is
    guarded like a family's (:mod:`eval_core._util.guard`): one that raises, or a hookimpl no
    hookspec declares, is one line naming the distribution, its version and the line; a
    command name that exists already is one line naming both distributions."""
    import pluggy

    from eval_core._plugins import hookspecs
    from eval_core._plugins.manager import Manager
    from eval_core._util.entrypoints import entry_points

    manager = Manager(hookspecs.PROJECT)
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


def run_command(command: Command, args: object) -> int:
    """The command's exit code; a plug-in command that raises is one line naming it."""
    if command.plugin is not None:  # a plug-in's command: its own work, the collector on
        from eval_core._util import collector

        collector.resume()
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
        return 0
    if isinstance(code, bool) or not isinstance(code, int):
        _fail(
            f"eval: plug-in {command.label}: the command {command.name!r} returned {code!r}, "
            "not an exit code (an int)"
        )
    return code
