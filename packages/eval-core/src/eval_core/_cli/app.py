"""The `eval` command line as a typer app, built from the declared commands (the core's and the
plug-ins', :mod:`eval_core._plugins.commands`): one parser, one help format, one shell
completion (``eval --install-completion``; docs/cli.md).

Each command's declared arguments become the typed parameters of a typer command (a signature
made for it, so typer reads it as it reads any function). The command's callback only hands the
parsed values back: what the command does runs after typer returns, outside click's handling of
exceptions, so a refusal, a plug-in's fault and Ctrl-C are said the way ``eval`` says them.
Help is click's plain text (``rich_markup_mode=None``): rich is never imported by the parser.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import SimpleNamespace
from typing import Annotated, Any

import typer
from typer import _click
from typer._click import exceptions
from typer._coercion import RuntimeParam
from typer.core import TyperCommand, TyperGroup

from eval_core._cli.exits import EXIT_CODES
from eval_core._cli.usage import UsageRefused, unknown_command, unrecognized
from eval_core._plugins.commands import Argument, Command

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

    def list_commands(self, ctx: _click.Context) -> list[str]:
        return list(self.table)

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.table:
            self.commands[cmd_name] = _subcommand(self.table[cmd_name])
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        rows = [(name, command.help) for name, command in self.table.items()]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def get_help_option(self, ctx: _click.Context) -> Any:
        return _as_given_param(super().get_help_option(ctx))

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            raise UsageRefused(unknown_command(args[0], self.list_commands(ctx)), ctx)
        return super().resolve_command(ctx, args)


class Subcommand(TyperCommand):
    """``eval NAME``: an option's value may be left out where it has a ``const`` (``--baseline``
    alone is the canonical Baseline), and arguments left over are said as argparse said them."""

    consts: dict[str, str] = {}  # noqa: RUF012 - replaced per command by build()

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        try:
            rest = super().parse_args(ctx, self._with_consts(args))
        except exceptions.UsageError as exc:  # click's parser leaves some without the command
            exc.ctx = exc.ctx or ctx
            raise
        if ctx.args:
            raise UsageRefused(unrecognized(ctx.args), ctx)
        return rest

    def get_help_option(self, ctx: _click.Context) -> Any:
        return _as_given_param(super().get_help_option(ctx))

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


def build(table: dict[str, Command]) -> _click.Command:
    """The click command typer makes of ``table`` (in its order, which ``eval --help`` lists)."""
    app = typer.Typer(
        name="eval",
        help=DESCRIPTION,
        epilog=EXIT_CODES,
        cls=Group,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        add_completion=True,
        context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    )
    app.callback()(_top)
    group = typer.main.get_command(app)
    group.table = table  # type: ignore[attr-defined]
    for param in group.params:  # --traceback and the completion flags: taken as given
        _as_given_param(param)
    return group


def _subcommand(command: Command) -> _click.Command:
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
        if param.name in by_dest:  # our conversion, not typer's pydantic one (see Converted)
            argument = by_dest[param.name]
            param._runtime_param = Converted(
                param.type_descriptor.parameter_info, str, _converter(argument)
            )
    made.consts = {
        f: str(a.settings["const"]) for a in declared if "const" in a.settings for f in a.flags
    }
    return made  # type: ignore[no-any-return]


class Converted(RuntimeParam):
    """A parameter's value made by its declared ``type`` alone. typer 0.29 coerces every value
    through a pydantic TypeAdapter, and importing pydantic costs more than the rest of
    ``eval``'s start-up together (about 120 ms); the declared ``type`` already says what the
    value is, so typer's coercion has nothing to add. A plain subclass of typer's dataclass:
    making it a dataclass too would cost ``eval --help`` a millisecond."""

    convert: Callable[[Any], Any]

    def __init__(self, parameter_info: Any, annotation: Any, convert: Callable[[Any], Any]) -> None:
        super().__init__(parameter_info, annotation)
        object.__setattr__(self, "convert", convert)  # frozen, as typer's fields are

    def coerce(self, value: Any, param: Any, ctx: _click.Context) -> Any:
        if value is None or (isinstance(value, tuple | list) and not value):
            return None  # argparse's "not given", for an ``append`` and a ``+`` alike
        try:
            if isinstance(value, tuple | list):
                return [self.convert(item) for item in value]
            return self.convert(value)
        except exceptions.BadParameter as exc:
            exc.param, exc.ctx = exc.param or param, exc.ctx or ctx
            raise

    def _coerce_value(self, value: Any, param: Any, ctx: _click.Context) -> Any:
        return self.coerce(value, param, ctx)


def _as_given(value: Any) -> Any:
    return value


def _as_given_param(param: Any) -> Any:
    """A flag of typer's own (``--help``, the completion flags) with its value as given."""
    if param is not None and getattr(param, "_runtime_param", False) is None:
        param._runtime_param = Converted(param.type_descriptor.parameter_info, str, _as_given)
    return param


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
    convert = _converter(argument)
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
