"""A command's plain words parsed without typer (issue 49): importing typer and building its
command cost about a seventh of a whole 100-Case ``eval sweep`` process.

Plain words are the command's own flags, each exactly as declared (or ``--long=VALUE``), their
values (none starting with ``-``), and its positionals, each flag at most once (``append`` flags
as often as wanted): what a script or CI writes. For those the namespace made here is the one
typer's parse makes (:mod:`~eval_cli.app`: every value made by its declared ``type`` and
``choices``, defaults too, ``const`` for a value-less ``--baseline``; a property test holds the
two to it). Anything else (help, ``--``, an unknown or repeated flag, a missing or extra
positional, a value its ``type`` refuses, completion) is ``None``: typer parses it and says any
mistake the way it always has.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from eval_core.commands import Argument, Command

_HELP = frozenset(("-h", "--help"))


class _NotPlain(Exception):  # noqa: N818 - it names an outcome
    """The words are not plain: typer parses them."""


def parse(command: Command, words: list[str]) -> SimpleNamespace | None:
    """The parsed arguments of ``eval COMMAND WORDS`` when the words are plain, else ``None``."""
    try:
        return _parse(command.arguments.declared, words)
    except _NotPlain:
        return None


def _parse(declared: list[Argument], words: list[str]) -> SimpleNamespace:
    by_flag = {flag: a for a in declared if not a.positional for flag in a.flags}
    positionals = [a for a in declared if a.positional]
    optional = [a for a in positionals if a.settings.get("nargs") is not None]
    if _HELP & by_flag.keys() or (optional and len(positionals) > 1):
        raise _NotPlain  # typer's own rules decide these
    values: dict[str, Any] = {}
    given: list[str] = []
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        if not word.startswith("-"):
            given.append(word)
            continue
        flag, equals, inline = word.partition("=")
        argument = by_flag.get(flag if equals and flag.startswith("--") else word)
        if argument is None:
            raise _NotPlain
        action, dest = argument.settings.get("action"), argument.dest
        if action != "append" and dest in values:
            raise _NotPlain  # a repeated flag
        if action == "store_true":
            if equals:
                raise _NotPlain
            values[dest] = _plain(argument.settings, True)
            continue
        value, at = (inline, at) if equals else _value(argument, words, at)
        if action == "append":
            values.setdefault(dest, []).append(value)
        else:
            values[dest] = value
    return SimpleNamespace(**_with_positional(declared, positionals, given, values))


def _value(argument: Argument, words: list[str], at: int) -> tuple[str, int]:
    """The flag's value (the next word, or its ``const`` when none follows) and where the
    words go on."""
    if at < len(words) and not words[at].startswith("-"):
        return words[at], at + 1
    if "const" in argument.settings:
        return str(argument.settings["const"]), at  # given alone: see app.Subcommand
    raise _NotPlain


def _with_positional(
    declared: list[Argument], positionals: list[Argument], given: list[str], values: dict[str, Any]
) -> dict[str, Any]:
    """Every declared ``dest`` in declaration order, absent ones at their defaults."""
    if len(positionals) > 1:  # each exactly one word
        if len(given) != len(positionals):
            raise _NotPlain
        values.update((a.dest, word) for a, word in zip(positionals, given, strict=True))
    elif positionals:
        argument = positionals[0]
        nargs = argument.settings.get("nargs")
        if (not given and nargs != "?") or (len(given) > 1 and nargs != "+"):
            raise _NotPlain  # missing or extra: typer says which
        if given:
            values[argument.dest] = given if nargs == "+" else given[0]
    elif given:
        raise _NotPlain
    out: dict[str, Any] = {}
    for argument in declared:
        dest, settings = argument.dest, argument.settings
        if dest in values:
            out[dest] = (
                values[dest]
                if settings.get("action") == "store_true"
                else (_plain(settings, values[dest]))
            )
        elif settings.get("action") == "store_true":
            out[dest] = _plain(settings, False)
        elif settings.get("action") == "append":
            out[dest] = None
        else:
            out[dest] = _plain(settings, settings.get("default"))
    return out


def _plain(settings: dict[str, Any], value: Any) -> Any:
    """``value`` as app's ``Plain`` makes it: nothing stays ``None``, a list item by item."""
    if value is None or (isinstance(value, tuple | list) and not value):
        return None
    if isinstance(value, tuple | list):
        return [_converted(settings, item) for item in value]
    return _converted(settings, value)


def _converted(settings: dict[str, Any], text: Any) -> Any:
    """The value its declared ``type`` makes and ``choices`` admit (app's ``_converter``); a
    value either refuses is typer's to say."""
    kind = settings.get("type")
    value = text
    if kind is not None:
        try:
            value = kind(text)
        except Exception:
            raise _NotPlain from None
    choices = settings.get("choices")
    if choices is not None and value not in choices:
        raise _NotPlain
    return value
