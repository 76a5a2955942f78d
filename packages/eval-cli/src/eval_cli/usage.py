"""A usage mistake said in one line: ``eval sweep: <problem> (see eval sweep --help)``.

click words its errors for a multi-line dump ("Usage: ... Try 'eval sweep --help' for help.
Error: ..."); ``eval`` has always said the problem in argparse's words on one line, naming the
command, exit 2, and scripts and tests read those words. This module turns each of click's
usage errors into that line.

typer raises click's exceptions (from the click it vendors) and exports only ``BadParameter``
of them; the others are known here by the names and attributes click documents for them
(:func:`is_click_error`), never by importing a private module of typer's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import typer

from eval_core.commands import one_line


class UsageRefused(Exception):  # noqa: N818 - it names an outcome
    """A usage error whose message is already in ``eval``'s words; ``ctx`` is the click
    context of the command it names."""

    def __init__(self, message: str, ctx: Any = None) -> None:
        super().__init__(message)
        self.message, self.ctx = message, ctx


def is_click_error(error: BaseException, name: str = "ClickException") -> bool:
    """Whether ``error`` is one of click's exceptions of the class ``name`` (or a subclass)."""
    return any(cls.__name__ == name for cls in type(error).__mro__)


def is_usage_error(error: BaseException) -> bool:
    """A usage mistake: one of ours, or click's ``UsageError`` (``BadParameter`` among them)."""
    return isinstance(error, UsageRefused | typer.BadParameter) or is_click_error(
        error, "UsageError"
    )


def unrecognized(extras: Iterable[str]) -> str:
    return f"unrecognized arguments: {' '.join(extras)}"


def unknown_command(name: str, commands: Iterable[str]) -> str:
    listed = ", ".join(repr(c) for c in commands)
    return f"argument COMMAND: invalid choice: {name!r} (choose from {listed})"


def line(error: Any) -> str:
    """The one line for a usage ``error``: the command's path, the problem, where help is."""
    where = error.ctx.command_path if error.ctx is not None else "eval"
    return one_line(f"{where}: {problem(error)} (see {where} --help)")


def problem(error: Any) -> str:
    """What was wrong, in the words argparse used (and ``eval``'s tests and scripts read)."""
    if isinstance(error, UsageRefused):
        return error.message
    if is_click_error(error, "NoSuchOption"):
        return unrecognized([error.option_name])
    if is_click_error(error, "MissingParameter") and error.param is not None:
        return f"the following arguments are required: {named(error.param)}"
    if isinstance(error, typer.BadParameter) and error.param is not None:
        return f"argument {named(error.param)}: {error.message}"
    if is_click_error(error, "BadOptionUsage") and "requires an argument" in error.message:
        param = _option(error.ctx, error.option_name)
        shown = named(param) if param is not None else error.option_name
        return f"argument {shown}: expected one argument"
    return str(error.message).rstrip(".")


def named(param: Any) -> str:
    """An option by its flags (``-j/--jobs``), an argument by its metavar (``AFTER``)."""
    if param.param_type_name == "option":
        return "/".join(param.opts)
    return param.metavar or (param.name or "").upper()


def _option(ctx: Any, flag: str) -> Any:
    if ctx is None:
        return None
    return next((p for p in ctx.command.params if flag in getattr(p, "opts", ())), None)
