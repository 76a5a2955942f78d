"""``eval new-plugin`` (a family's package) and ``eval init`` (a starter Corpus in the team's
project), added to the ``eval`` command line by the commands hook, as any plug-in adds one.

Light on import (``eval --help`` loads this module): what a command writes is imported when it
runs. A refusal is its message on stderr, every line of it, and its exit code (2), never a
traceback; nothing is left half-written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar

from eval_core.commands import Commands, hookimpl
from eval_core.commands import path_argument as path

if TYPE_CHECKING:
    from pathlib import Path
    from types import SimpleNamespace

T = TypeVar("T")
REFUSED = 2


class Refusal(Exception):  # noqa: N818 - it names an outcome
    """A command's refusal: ``message`` for stderr (it may be several lines) and its code."""

    def __init__(self, message: str, code: int = REFUSED) -> None:
        super().__init__(message)
        self.message, self.code = message, code


def _refuse(message: str, code: int = REFUSED) -> NoReturn:
    raise Refusal(message, code)


def _guarded(work: Callable[[], T]) -> T:
    """Run ``work``; the core's refusal becomes this command's."""
    from eval_core.commands import Refused

    try:
        return work()
    except Refused as exc:
        _refuse(str(exc), exc.code)


def _said(run: Callable[[SimpleNamespace], int]) -> Callable[[SimpleNamespace], int]:
    """``run`` with its refusal written to stderr and returned as its exit code."""

    def command(args: SimpleNamespace) -> int:
        try:
            return run(args)
        except Refusal as exc:
            from eval_core.commands import clean

            sys.stderr.write(clean(exc.message.rstrip("\n")) + "\n")
            return exc.code

    command.__name__ = command.__qualname__ = run.__name__
    return command


def _new_plugin(args: SimpleNamespace) -> int:
    from eval_scaffold.scaffold import ScaffoldRefused, write

    name: str = args.name
    target: Path = args.directory if args.directory is not None else path(name)
    try:
        written = write(name, target)
    except ScaffoldRefused as exc:
        _refuse(f"eval new-plugin: {exc}")
    except OSError as exc:
        _refuse(f"eval new-plugin: {target} could not be written: {exc.strerror or exc}")
    for file in written:
        print(f"wrote {file}")
    print(
        f"next: install it where eval runs (uv pip install -e {target}, or pip install -e "
        f"{target}; to keep it across uv sync, see docs/plugins.md), then: pytest, "
        "eval plugins --check, eval lock"
    )
    return 0


def _init(args: SimpleNamespace) -> int:
    from pathlib import Path

    from eval_scaffold import starter

    project = Path.cwd()
    corpus: Path = args.corpus if args.corpus.is_absolute() else project / args.corpus
    try:
        starter.refuse_existing(corpus)
    except starter.InitRefused as exc:
        _refuse(f"eval init: {exc}")
    created = not corpus.exists()
    try:
        files, agent = _guarded(lambda: _starter_corpus(args, corpus))
    except BaseException:
        starter.undo(corpus, created)
        raise
    relative = corpus.relative_to(project).as_posix() if corpus.is_relative_to(project) else corpus
    table = starter.settings_table(str(relative), args.host, args.app)
    pyproject = project / "pyproject.toml"
    for file in files:
        print(f"wrote {file}")
    if starter.add_settings(pyproject, table):
        print(f"wrote [tool.eval] to {pyproject}")
    else:
        print(
            f"{pyproject} already has [tool.eval] (or is not TOML it can safely add to, or "
            "cannot be written); "
            "paste this table there yourself:\n\n" + table
        )
    ignored = starter.ignore_outputs(project / ".gitignore")
    if ignored is not None:
        print(ignored)
    print(
        f"next: eval sweep (the starter Cases for agent {agent!r} sweep green), then write "
        "your own Cases beside them: docs/your-project.md"
    )
    return 0


def _starter_corpus(args: SimpleNamespace, corpus: Path) -> tuple[list[Path], str]:
    """The starter Cases for the agent the Host finds, loaded back through it, and the lock."""
    from eval_core.commands import (
        Refused,
        known_host,
        load_corpus,
        open_host,
        open_plugins,
        write_lock,
    )
    from eval_core.hosts import LOCK_NAME, agents_owned
    from eval_scaffold import starter

    found = open_plugins()
    known_host(found, args.host)
    corpus.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    if args.host == starter.REFERENCE_HOST:  # the runtime's agents live in an Eval Soul
        from eval_kit import Agent, write_soul

        soul = write_soul(corpus / "soul", {"assistant": Agent()})
        files.append(soul / "agents" / "assistant" / "AGENT.md")
    options = {"app": args.app} if args.app is not None else {}
    host = open_host(found, args.host, corpus, options)
    try:
        agent = starter.choose_agent(host.agents(), args.agent)
        if agent is None:
            has = ", ".join(sorted(host.agents())) or "no agents"
            raise Refused(f"eval init: no agent {args.agent!r}; the Host has: {has}")
        made = starter.cases(agent, starter.agent_tools(host, agent), args.host)
        files += starter.write_cases(corpus, made)
        load_corpus(found, host, corpus, needs_soul=not agents_owned(found.hosts[args.host]))
    finally:
        host.close()
    lock = corpus / LOCK_NAME
    try:
        write_lock(lock, found, args.host)
    except OSError as exc:
        raise Refused(f"eval init: {lock} could not be written: {exc}") from None
    files.append(lock)
    return files, agent


run_new_plugin = _said(_new_plugin)
run_init = _said(_init)


@hookimpl
def eval_commands(commands: Commands) -> None:
    new_plugin = commands.add(
        "new-plugin",
        help="Write a plug-in package (one kind, one Case field, tests, CI).",
        description="Write a plug-in package: one kind, one Case field, tests on the testing "
        "kit, an example Corpus and CI, ready to install, test and sweep (see docs/plugins.md).",
        run=run_new_plugin,
    )
    new_plugin.add_argument(
        "name", metavar="NAME", help="The distribution name, e.g. acme-tickets."
    )
    new_plugin.add_argument(
        "-d",
        "--directory",
        type=path,
        metavar="DIR",
        help="Where to write it (default: ./NAME).",
    )

    init = commands.add(
        "init",
        help="Write a starter Corpus for your agent into this project.",
        description="Write a starter Corpus for your agent into the project in the working "
        "directory: four Cases naming the agent and Tools the Host finds (one a "
        "tool_not_called), its eval.lock, the [tool.eval] settings (appended to pyproject.toml, "
        "or printed to paste) and a .gitignore entry for the outputs. It sweeps green at once "
        "(see docs/your-project.md). Nothing is overwritten.",
        run=run_init,
    )
    init.add_argument(
        "--host",
        default="agent-runtime",
        metavar="NAME",
        help="The Host your agent runs on (pydantic-ai, langgraph, agent-runtime...).",
    )
    init.add_argument(
        "--app",
        metavar="MODULE:AGENTS",
        help="Where a framework Host finds your agents, e.g. mypkg.agent:AGENTS.",
    )
    init.add_argument(
        "--agent", metavar="NAME", help="The agent the Cases are for (default: the first)."
    )
    init.add_argument(
        "--corpus",
        type=path,
        default="corpus",
        metavar="DIR",
        help="The Corpus folder to write, in this project (new or empty).",
    )
