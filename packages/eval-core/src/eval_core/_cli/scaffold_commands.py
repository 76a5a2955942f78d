"""The commands that write something new for a team: ``eval init`` (a starter Corpus in the
team's project) and ``eval new-plugin`` (a family's package). Apart from the commands that
read a Corpus (:mod:`eval_core._cli.core_commands`), whose refusal helpers they share."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._cli.core_commands import _guarded, _refuse
from eval_core._cli.exits import CLEARED
from eval_core._plugins.commands import path

if TYPE_CHECKING:
    from pathlib import Path
    from types import SimpleNamespace


def run_new_plugin(args: SimpleNamespace) -> int:
    from eval_core._kit.scaffold import ScaffoldRefused, write

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
    return CLEARED


def run_init(args: SimpleNamespace) -> int:
    from pathlib import Path

    from eval_core._kit import starter

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
    return CLEARED


def _starter_corpus(args: SimpleNamespace, corpus: Path) -> tuple[list[Path], str]:
    """The starter Cases for the agent the Host finds, loaded back through it, and the lock."""
    from eval_core._kit import starter
    from eval_core._loading import opening
    from eval_core._plugins import lock

    found = opening.plugins()
    opening.known_host(found, args.host)
    corpus.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    if args.host == starter.REFERENCE_HOST:  # the runtime's agents live in an Eval Soul
        from eval_core._kit.testing import Agent, write_soul

        soul = write_soul(corpus / "soul", {"assistant": Agent()})
        files.append(soul / "agents" / "assistant" / "AGENT.md")
    options = {"app": args.app} if args.app is not None else {}
    host = opening.host(found, args.host, corpus, options)
    try:
        agent = starter.choose_agent(host.agents(), args.agent)
        if agent is None:
            has = ", ".join(sorted(host.agents())) or "no agents"
            raise opening.Refused(f"eval init: no agent {args.agent!r}; the Host has: {has}")
        made = starter.cases(agent, starter.agent_tools(host, agent), args.host)
        files += starter.write_cases(corpus, made)
        from eval_core._plugins.host import agents_owned

        opening.load(found, host, corpus, needs_soul=not agents_owned(found.hosts[args.host]))
    finally:
        host.close()
    path = corpus / lock.LOCK_NAME
    try:
        lock.write(path, found, args.host)
    except OSError as exc:
        raise opening.Refused(f"eval init: {path} could not be written: {exc}") from None
    files.append(path)
    return files, agent
