"""The `eval` command line as a typer app, built from the declared commands (the core's and the
plug-ins', declared through :mod:`eval_core.commands`): one parser, one help format, one shell
completion (``eval --install-completion``; docs/cli.md).

Each command's declared arguments become the typed parameters of a typer command (a signature
made for it, so typer reads it as it reads any function). The command's callback only hands the
parsed values back: what the command does runs after typer returns, outside click's handling of
exceptions, so a refusal, a plug-in's fault and Ctrl-C are said the way ``eval`` says them.
Help is click's plain text (``rich_markup_mode=None``): rich is never imported by the parser.

Only typer's public API is used (issue 48): :mod:`typer`, ``typer.core``'s command classes and
``typer.main.get_command``, and the methods click documents on the commands and parameters typer
makes (``parse_args``, ``resolve_command``, ``process_value``...). typer 0.29 vendors click and
exports none of it but ``BadParameter``: an annotation here says ``Any`` where click's type is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import SimpleNamespace
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from eval_cli.exits import EXIT_CODES
from eval_cli.usage import (
    UsageRefused,
    is_usage_error,
    named,
    unknown_command,
    unrecognized,
)
from eval_core.commands import Argument, Command

TRACEBACK_HELP = (
    "When plug-in code raises, also print its full traceback on stderr (for plug-in authors; "
    "the refusal or errored Trial is unchanged). Any position."
)
DESCRIPTION = "Offline eval harness for tool-using LLM agents."


class Group(TyperGroup):
    """``eval``: its commands listed from the table, each made a typer command only when it is
    needed (the one invoked, or all for completion), so ``eval --help`` pays for no command's
    parameters; an unknown command is named with the commands there are."""

    table: dict[str, Command] = {}  # noqa: RUF012 - replaced by build()

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.table)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in self.table:
            self.commands[cmd_name] = _subcommand(self.table[cmd_name])
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, command.help) for name, command in self.table.items()]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_help_option(self, ctx: Any) -> Any:
        return _plain(super().get_help_option(ctx))

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            raise UsageRefused(unknown_command(args[0], self.list_commands(ctx)), ctx)
        return super().resolve_command(ctx, args)


class Subcommand(TyperCommand):
    """``eval NAME``: an option's value may be left out where it has a ``const`` (``--baseline``
    alone is the canonical Baseline), and arguments left over are said as argparse said them."""

    consts: dict[str, str] = {}  # noqa: RUF012 - replaced per command by build()

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        try:
            rest = super().parse_args(ctx, self._with_consts(args))
        except Exception as exc:  # click's parser leaves some without the command
            if is_usage_error(exc) and exc.ctx is None:  # type: ignore[attr-defined]
                exc.ctx = ctx  # type: ignore[attr-defined]
            raise
        if ctx.args:
            raise UsageRefused(unrecognized(ctx.args), ctx)
        return rest

    def get_help_option(self, ctx: Any) -> Any:
        return _plain(super().get_help_option(ctx))

    def _with_consts(self, args: list[str]) -> list[str]:
        """``--baseline`` with no value after it (the end, or another flag) gets its const:
        typer's parser has no optional values, and this is the one place ``eval`` has one."""
        out: list[str] = []
        for i, arg in enumerate(args):
            if arg == "--":
                return out + args[i:]
            out.append(arg)
            if arg in self.consts:
                following = args[i + 1] if i + 1 < len(args) else None
                if following is None or (following.startswith("-") and following != "-"):
                    out.append(self.consts[arg])
        return out


def build(table: dict[str, Command], width: int | None = None) -> Any:
    """The click command typer makes of ``table`` (in its order, which ``eval --help`` lists),
    its help rendered ``width`` columns wide (default: click's rule for this terminal)."""
    settings: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
    if width is not None:
        settings["terminal_width"] = width
    app = typer.Typer(
        name="eval",
        help=DESCRIPTION,
        epilog=EXIT_CODES,
        cls=Group,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        add_completion=True,
        context_settings=settings,
    )
    app.callback()(_top)
    group = typer.main.get_command(app)
    group.table = table  # type: ignore[attr-defined]
    for param in group.params:  # --traceback and the completion flags: taken as given
        _plain(param)
    return group


def _subcommand(command: Command) -> Any:
    """``command`` as typer makes it (from a one-command app: typer's public way in)."""
    app = typer.Typer(rich_markup_mode=None, add_completion=False, pretty_exceptions_enable=False)
    app.callback()(_nothing)
    app.command(
        command.name,
        cls=Subcommand,
        help=command.description,
        short_help=command.help,
        context_settings={"allow_extra_args": True},
    )(_callback(command))
    made = typer.main.get_command(app).commands[command.name]  # type: ignore[attr-defined]
    declared = command.arguments.declared
    by_dest = {argument.dest: argument for argument in declared}
    for param in made.params:
        argument = by_dest.get(param.name)
        _plain(param, _converter(argument) if argument is not None else None)
    made.consts = {
        f: str(a.settings["const"]) for a in declared if "const" in a.settings for f in a.flags
    }
    return made


def _plain(param: Any, convert: Callable[[Any], Any] | None = None) -> Any:
    """``param`` with its value made by ``convert`` (its declared ``type``) alone, or taken as
    given (``--help``, the completion flags), through click's ``process_value``. typer 0.29
    coerces every other value through a pydantic TypeAdapter, and importing pydantic costs more
    than the rest of ``eval``'s start-up together (about 120 ms); the declared ``type`` already
    says what the value is, so typer's coercion has nothing to add."""
    if param is not None and not isinstance(param.process_value, Plain):
        param.process_value = Plain(param, convert)
    return param


class Plain:
    """A parameter's ``process_value``: its value converted, required checked, callback run,
    as click's own does it, without typer's coercion (see :func:`_plain`)."""

    __slots__ = ("convert", "param")

    def __init__(self, param: Any, convert: Callable[[Any], Any] | None) -> None:
        self.param, self.convert = param, convert

    def __call__(self, ctx: Any, value: Any) -> Any:
        param = self.param
        if self.convert is not None:
            value = self._converted(value)
        if param.required and param.value_is_missing(value):
            raise UsageRefused(f"the following arguments are required: {named(param)}", ctx)
        if param.callback is not None:
            value = param.callback(ctx, param, value)
        return value

    def _converted(self, value: Any) -> Any:
        assert self.convert is not None
        if value is None or (isinstance(value, tuple | list) and not value):
            return None  # argparse's "not given", for an ``append`` and a ``+`` alike
        if isinstance(value, tuple | list):
            return [self.convert(item) for item in value]
        return self.convert(value)


def _nothing() -> None:
    """The one-command app's group, never invoked."""


def _top(
    traceback: Annotated[bool, typer.Option("--traceback", help=TRACEBACK_HELP)] = False,
) -> None:
    """Offline eval harness for tool-using LLM agents."""


def _callback(command: Command) -> Any:
    """A function whose signature is the command's arguments; it returns them, parsed."""

    def parsed(**values: Any) -> tuple[Command, SimpleNamespace]:
        return command, SimpleNamespace(**values)

    parameters = [_parameter(argument) for argument in command.arguments.declared]
    parsed.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    parsed.__annotations__ = {p.name: p.annotation for p in parameters}
    parsed.__name__ = command.name.replace("-", "_")
    return parsed


def _parameter(argument: Argument) -> inspect.Parameter:
    settings = argument.settings
    help_ = settings.get("help")
    action = settings.get("action")
    default = settings.get("default")
    info: Any
    if action == "store_true":
        info = typer.Option(*argument.flags, help=help_)
        return _keyword(argument, Annotated[bool, info], False)
    convert = _converter(argument)  # what typer's help names the type by; Plain calls it
    if argument.positional:
        many = settings.get("nargs") == "+"
        info = typer.Argument(
            metavar=argument.metavar, help=help_, parser=convert, show_default=False
        )
        optional = settings.get("nargs") == "?"
        value = default if optional else inspect.Parameter.empty
        kind = _annotation(argument)
        return _keyword(argument, Annotated[list[kind] if many else kind, info], value)  # type: ignore[valid-type]
    const = settings.get("const")  # given without a value: see Subcommand
    shown = default not in (None, False, [])
    info = typer.Option(
        *argument.flags,
        metavar=argument.metavar if const is None else f"[{argument.metavar}]",
        help=help_,
        parser=convert,
        show_default=shown,
    )
    kind = _annotation(argument)
    if action == "append":
        return _keyword(argument, Annotated[list[kind] | None, info], None)  # type: ignore[valid-type]
    return _keyword(argument, Annotated[kind | None, info], default)


def _annotation(argument: Argument) -> Any:
    """The type typer's help shows (``<int>``, ``<path>``); the value is what ``type`` made."""
    kind = argument.settings.get("type")
    if kind in (int, float):
        return kind
    if getattr(kind, "__name__", "") == "path":
        from pathlib import Path

        return Path
    return str


def _keyword(argument: Argument, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        argument.dest, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
    )


def _converter(argument: Argument) -> Any:
    """The declared ``type`` (and ``choices``), a bad value said as argparse said it."""
    kind = argument.settings.get("type")
    choices = argument.settings.get("choices")
    label = getattr(kind, "__name__", "")

    def convert(text: Any) -> Any:
        value = text
        if kind is not None:
            try:
                value = kind(text)
            except (TypeError, ValueError):
                raise typer.BadParameter(f"invalid {label} value: {text!r}") from None
        if choices is not None and value not in choices:
            listed = ", ".join(repr(c) for c in choices)
            raise typer.BadParameter(f"invalid choice: {value!r} (choose from {listed})")
        return value

    convert.__name__ = label or "text"
    return convert
