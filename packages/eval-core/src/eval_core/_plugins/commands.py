"""The sub-commands of ``eval``, the core's and the plug-ins', on the standard library's argparse.

A command plug-in (entry-point group ``eval.commands``) implements
:func:`eval_core._plugins.hookspecs.eval_commands` and adds its sub-commands to the
:class:`Commands`
registry it is given::

    from eval_core._plugins.commands import CommandRefused, Commands
    from eval_core._plugins.hookspecs import hookimpl


    def hello(args):  # an argparse.Namespace in, the exit code out
        if not args.name.strip():
            raise CommandRefused("eval hello: NAME is empty")  # one line on stderr, exit 2
        print(f"hello {args.name}")
        return 0


    @hookimpl
    def eval_commands(commands: Commands) -> None:
        parser = commands.add("hello", help="Say hello.", run=hello)
        parser.add_argument("name", metavar="NAME", help="Whom to greet.")

Usage errors (an unknown flag, a missing argument, a bad ``int``) are one line on stderr naming
the command, exit 2: :class:`Parser` overrides argparse's multi-line usage dump. This module is
imported by every ``eval`` invocation, so it stays light (the standard library only).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pathlib import Path

REFUSED = 2
CANONICAL = ":canonical:"
"""The value of ``--baseline`` given without a PATH: the model's canonical Baseline."""
DEFAULT_LOG = "scorecards/trials/{suite}-{model}-{time}-{pid}-{random}.jsonl"
"""Where a Sweep's trial log goes without ``--log`` (under the working directory): the suite,
the model, the UTC time it started (``20260130T120000Z``), the process id and six random hex
digits, so two Sweeps never share one. ``eval sweep --help`` shows it with ``<...>``."""


def default_log_help() -> str:
    """:data:`DEFAULT_LOG` as help text, ``<suite>-<model>-...jsonl in scorecards/trials/``
    (the name apart from its directory, so a help formatter never cuts the name in two)."""
    folder, _, name = DEFAULT_LOG.replace("{", "<").replace("}", ">").rpartition("/")
    return f"{name} in {folder}/"


Run = Callable[[argparse.Namespace], "int | None"]
"""A command: its parsed arguments in, its exit code out (``None`` is 0)."""


class CommandRefused(Exception):  # noqa: N818 - it names an outcome
    """Raise from a command's ``run`` to refuse: ``str()`` goes to stderr as one line, and
    ``eval`` exits with ``code`` (2 refused input, 3 a comparison refused)."""

    def __init__(self, message: str, code: int = REFUSED) -> None:
        super().__init__(message)
        self.code = code


class CommandClash(Exception):  # noqa: N818 - it names an outcome
    """A command name added twice; ``owner`` is who added it first."""

    def __init__(self, name: str, owner: str) -> None:
        super().__init__(f"the command {name!r} exists already ({owner} adds it)")
        self.name = name
        self.owner = owner


def path(text: str) -> Path:
    """An argument naming a file or directory (``type=path``): :mod:`pathlib` is imported when
    a command reads one, not by ``eval --help``. A string default is converted too."""
    from pathlib import Path

    return Path(text)


def one_line(text: str) -> str:
    """``text`` fit for one line of a terminal: controls made visible, line breaks spaces."""
    from eval_core._util.safe_text import clean

    return " ".join(clean(text.rstrip("\n")).split("\n"))


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` finds it: ``$COLUMNS``, else
    stdout's terminal, else 80."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Paragraphs (separated by a blank line) filled to the terminal's width, each kept apart;
    a default shown after the help when there is one worth showing."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        kwargs.setdefault("width", _columns() - 2)  # as argparse's, without importing shutil
        super().__init__(prog, **kwargs)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = (" ".join(p.split()) for p in text.split("\n\n"))
        return "\n\n".join(
            textwrap.fill(
                p, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
            )
            for p in paragraphs
            if p
        )

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):  # the commands, without "COMMAND"
            return "".join(self._format_action(sub) for sub in action._get_subactions())
        return super()._format_action(action)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = action.default not in (None, False, [], argparse.SUPPRESS)
        wanted = action.option_strings or action.nargs in (argparse.OPTIONAL, "*")
        if shown and wanted and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error said in one line: ``eval sweep: <problem> (see eval sweep
    --help)`` on stderr, exit 2, never the usage dump."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        kwargs.setdefault("allow_abbrev", False)  # --verb is not --verbose
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(one_line(f"{self.prog}: {message} (see {self.prog} --help)") + "\n")
        raise SystemExit(REFUSED)


class Command:
    """One sub-command: its parser, what runs it, and who added it: a distribution, its
    version and the plug-in object (``None`` for the core's own commands)."""

    __slots__ = ("name", "owner", "parser", "plugin", "run", "version")

    def __init__(
        self,
        name: str,
        parser: Parser,
        run: Run,
        owner: str = "eval-core",
        version: str = "",
        plugin: object | None = None,
    ) -> None:
        self.name, self.parser, self.run = name, parser, run
        self.owner, self.version, self.plugin = owner, version, plugin

    @property
    def label(self) -> str:
        return f"{self.owner} {self.version}".strip()


class Commands:
    """The registry a command plug-in adds its sub-commands to (see the module's example)."""

    def __init__(
        self,
        subparsers: argparse._SubParsersAction[Parser],
        table: dict[str, Command],
        owner: str = "eval-core",
        version: str = "",
        plugin: object | None = None,
    ) -> None:
        self._subparsers = subparsers
        self._table = table
        self._owner = (owner, version, plugin)

    def add(
        self, name: str, *, help: str, run: Run, description: str | None = None
    ) -> argparse.ArgumentParser:
        """Add ``eval NAME``; return its parser, for the plug-in to add its arguments to.

        ``help`` is the one-line summary ``eval --help`` lists; ``description`` (default:
        ``help``) heads ``eval NAME --help``, its paragraphs separated by blank lines.
        ``run(args)`` is called with the parsed :class:`argparse.Namespace` and returns the exit
        code; it refuses by raising :class:`CommandRefused` (or writing one line to stderr and
        returning 2). A name that exists already is refused, naming who added it first.
        """
        if not isinstance(name, str) or not name or name.startswith("-") or name != name.strip():
            raise ValueError(f"a command name must be a word, not {name!r}")
        if not isinstance(help, str) or not help.strip():
            raise ValueError(f"the command {name!r} needs a one-line help")
        if not callable(run):
            raise TypeError(f"the command {name!r}: run must be callable, not {run!r}")
        if name in self._table:
            raise CommandClash(name, self._table[name].label)
        parser = self._subparsers.add_parser(
            name,
            help=help.replace("%", "%%"),
            description=description if description is not None else help,
        )
        self._table[name] = Command(name, parser, run, *self._owner)
        return parser

    def by(self, owner: str, version: str, plugin: object) -> Commands:
        """The same registry, adding on behalf of a plug-in (its distribution and version)."""
        return Commands(self._subparsers, self._table, owner, version, plugin)
