"""The sub-commands of ``eval``, the core's and the plug-ins', declared here and parsed by typer.

A command plug-in (entry-point group ``eval.commands``) implements
:func:`eval_core._plugins.hookspecs.eval_commands` and adds its sub-commands to the
:class:`Commands` registry it is given::

    from eval_core._plugins.commands import CommandRefused, Commands
    from eval_core._plugins.hookspecs import hookimpl


    def hello(args):  # the parsed arguments (a namespace) in, the exit code out
        if not args.name.strip():
            raise CommandRefused("eval hello: NAME is empty")  # one line on stderr, exit 2
        print(f"hello {args.name}")
        return 0


    @hookimpl
    def eval_commands(commands: Commands) -> None:
        arguments = commands.add("hello", help="Say hello.", run=hello)
        arguments.add_argument("name", metavar="NAME", help="Whom to greet.")

An argument is declared as argparse spells it (``add_argument``: flags or a name, ``type``,
``default``, ``nargs`` ``?``/``+``, ``action`` ``store_true``/``append``, ``const``, ``metavar``,
``dest``, ``choices``, ``help``), so a plug-in needs neither typer nor click to add a command,
and neither does the core: the ``eval`` front-end (the eval-cli package, ``eval_cli.app``) turns
every declaration into a typer command: one parser, one help format, one shell completion.
Usage errors (an unknown flag, a missing argument, a bad ``int``) are one line on stderr naming
the command, exit 2. This module is imported by every ``eval``
invocation, so it stays light (the standard library only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

REFUSED = 2
CANONICAL = ":canonical:"
"""The value of ``--baseline`` given without a PATH: the model's canonical Baseline."""
DEFAULT_LOG = "scorecards/trials/{suite}-{model}-{time}-{pid}-{random}.jsonl"
"""Where a Sweep's trial log goes without ``--log``, under the project's root
(:mod:`eval_core._util.project`; ``scorecards/`` is its outputs folder unless ``[tool.eval]``
names another): the suite,
the model, the UTC time it started (``20260130T120000Z``), the process id and six random hex
digits, so two Sweeps never share one. ``eval sweep --help`` shows it with ``<...>``."""


def default_log(outputs: Path, suite: str, model: str) -> Path:
    """A new trial log named by :data:`DEFAULT_LOG`, its ``scorecards/`` being ``outputs`` (the
    project's outputs folder): a Sweep's, and any command's that runs a Sweep of its own."""
    import os
    from datetime import UTC, datetime
    from pathlib import Path

    from eval_core._util.project import OUTPUTS

    name = DEFAULT_LOG.format(
        suite=suite,
        model=model,
        time=datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ"),
        pid=os.getpid(),
        random=os.urandom(3).hex(),
    )
    return outputs / Path(name).relative_to(OUTPUTS)


def default_log_help() -> str:
    """:data:`DEFAULT_LOG` as help text, ``<suite>-<model>-...jsonl in scorecards/trials/``
    (the name apart from its directory, so a help formatter never cuts the name in two)."""
    folder, _, name = DEFAULT_LOG.replace("{", "<").replace("}", ">").rpartition("/")
    return f"{name} in {folder}/ under the project's root"


Run = Callable[[Any], "int | None"]
"""A command: its parsed arguments (a namespace, one attribute per ``dest``) in, its exit code
out (``None`` is 0)."""


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


_ACTIONS = (None, "store", "store_true", "append")
_NARGS = (None, "?", "+")
_KEYS = frozenset(
    ("type", "default", "nargs", "action", "const", "metavar", "dest", "choices", "help")
)


class Argument:
    """One declared argument: its flags (or its name, for a positional) and its settings."""

    __slots__ = ("flags", "settings")

    def __init__(self, flags: tuple[str, ...], settings: dict[str, Any]) -> None:
        self.flags, self.settings = flags, settings

    @property
    def positional(self) -> bool:
        return not self.flags[0].startswith("-")

    @property
    def dest(self) -> str:
        """The attribute the parsed value is found under, as argparse names it."""
        if "dest" in self.settings:
            return str(self.settings["dest"])
        if self.positional:
            return self.flags[0]
        long = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return long.lstrip("-").replace("-", "_")

    @property
    def metavar(self) -> str | None:
        if "metavar" in self.settings:
            return str(self.settings["metavar"])
        return self.flags[0] if self.positional else None


class Arguments:
    """A sub-command's arguments, declared as argparse spells them (see the module)."""

    def __init__(self) -> None:
        self.declared: list[Argument] = []

    def add_argument(self, *flags: str, **settings: Any) -> None:
        """Declare one argument; an unknown setting, action or ``nargs`` is refused here, at
        the plug-in's line, not when a user first types the command."""
        if not flags or not all(isinstance(f, str) and f for f in flags):
            raise ValueError(f"add_argument needs a name or flags, not {flags!r}")
        if len(flags) > 1 and not all(f.startswith("-") for f in flags):
            raise ValueError(f"a positional argument has one name, not {flags!r}")
        unknown = set(settings) - _KEYS
        if unknown:
            raise TypeError(f"add_argument{flags!r}: unsupported settings {sorted(unknown)}")
        if settings.get("action") not in _ACTIONS:
            raise ValueError(f"add_argument{flags!r}: action must be one of {_ACTIONS[1:]}")
        if settings.get("nargs") not in _NARGS:
            raise ValueError(f"add_argument{flags!r}: nargs must be one of {_NARGS[1:]}")
        argument = Argument(tuple(flags), dict(settings))
        if any(argument.dest == other.dest for other in self.declared):
            raise ValueError(f"add_argument{flags!r}: {argument.dest!r} is declared already")
        self.declared.append(argument)


class Command:
    """One sub-command: its summary and description, its arguments, what runs it, and who
    added it: a distribution, its version and the plug-in object (``None`` for the core's)."""

    __slots__ = ("arguments", "description", "help", "name", "owner", "plugin", "run", "version")

    def __init__(
        self,
        name: str,
        help: str,
        description: str,
        run: Run,
        owner: str = "eval-core",
        version: str = "",
        plugin: object | None = None,
    ) -> None:
        self.name, self.help, self.description, self.run = name, help, description, run
        self.arguments = Arguments()
        self.owner, self.version, self.plugin = owner, version, plugin

    @property
    def label(self) -> str:
        return f"{self.owner} {self.version}".strip()


class Commands:
    """The registry a command plug-in adds its sub-commands to (see the module's example)."""

    def __init__(
        self,
        table: dict[str, Command] | None = None,
        owner: str = "eval-core",
        version: str = "",
        plugin: object | None = None,
    ) -> None:
        self.table: dict[str, Command] = {} if table is None else table
        self._owner = (owner, version, plugin)

    def add(self, name: str, *, help: str, run: Run, description: str | None = None) -> Arguments:
        """Add ``eval NAME``; return its :class:`Arguments`, for the plug-in to declare them.

        ``help`` is the one-line summary ``eval --help`` lists; ``description`` (default:
        ``help``) heads ``eval NAME --help``, its paragraphs separated by blank lines.
        ``run(args)`` is called with the parsed arguments (a namespace, one attribute per
        argument's ``dest``) and returns the exit code; it refuses by raising
        :class:`CommandRefused` (or writing one line to stderr and returning 2). A name that
        exists already is refused, naming who added it first.
        """
        if not isinstance(name, str) or not name or name.startswith("-") or name != name.strip():
            raise ValueError(f"a command name must be a word, not {name!r}")
        if not isinstance(help, str) or not help.strip():
            raise ValueError(f"the command {name!r} needs a one-line help")
        if not callable(run):
            raise TypeError(f"the command {name!r}: run must be callable, not {run!r}")
        if name in self.table:
            raise CommandClash(name, self.table[name].label)
        command = Command(name, help, description or help, run, *self._owner)
        self.table[name] = command
        return command.arguments

    def by(self, owner: str, version: str, plugin: object) -> Commands:
        """The same registry, adding on behalf of a plug-in (its distribution and version)."""
        return Commands(self.table, owner, version, plugin)
