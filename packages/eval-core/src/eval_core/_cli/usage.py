"""A usage mistake said in one line: ``eval sweep: <problem> (see eval sweep --help)``.

click words its errors for a multi-line dump ("Usage: ... Try 'eval sweep --help' for help.
Error: ..."); ``eval`` has always said the problem in argparse's words on one line, naming the
command, exit 2, and scripts and tests read those words. This module turns each of click's
usage errors into that line.
"""

from __future__ import annotations

from collections.abc import Iterable

from typer import _click
from typer._click import exceptions

from eval_core._plugins.commands import one_line


class UsageRefused(exceptions.UsageError):
    """A usage error whose message is already in ``eval``'s words."""


def unrecognized(extras: Iterable[str]) -> str:
    return f"unrecognized arguments: {' '.join(extras)}"


def unknown_command(name: str, commands: Iterable[str]) -> str:
    listed = ", ".join(repr(c) for c in commands)
    return f"argument COMMAND: invalid choice: {name!r} (choose from {listed})"


def line(error: exceptions.UsageError) -> str:
    """The one line for ``error``: the command's path, the problem, where help is."""
    where = error.ctx.command_path if error.ctx is not None else "eval"
    return one_line(f"{where}: {problem(error)} (see {where} --help)")


def problem(error: exceptions.UsageError) -> str:
    """What was wrong, in the words argparse used (and ``eval``'s tests and scripts read)."""
    if isinstance(error, UsageRefused):
        return error.message
    if isinstance(error, exceptions.NoSuchOption):
        return unrecognized([error.option_name])
    if isinstance(error, exceptions.MissingParameter) and error.param is not None:
        return f"the following arguments are required: {_name(error.param)}"
    if isinstance(error, exceptions.BadParameter) and error.param is not None:
        return f"argument {_name(error.param)}: {error.message}"
    if isinstance(error, exceptions.BadOptionUsage) and "requires an argument" in error.message:
        param = _option(error.ctx, error.option_name)
        named = _name(param) if param is not None else error.option_name
        return f"argument {named}: expected one argument"
    return error.message.rstrip(".")


def _name(param: _click.Parameter) -> str:
    """An option by its flags (``-j/--jobs``), an argument by its metavar (``AFTER``)."""
    if param.param_type_name == "option":
        return "/".join(param.opts)
    return param.metavar or (param.name or "").upper()


def _option(ctx: _click.Context | None, flag: str) -> _click.Parameter | None:
    if ctx is None:
        return None
    return next((p for p in ctx.command.params if flag in getattr(p, "opts", ())), None)
