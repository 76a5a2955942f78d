"""Where a team's LangGraph agents are named, and how one is built for a Trial.

A team names a mapping of agent names to *builders*: ``--host-option
app=package.module:AGENTS``, or ``[tool.eval] app = "package.module:AGENTS"`` in the
``pyproject.toml`` nearest above the Corpus, as the core's finder finds it
(:func:`eval_core.hosts.find_project`: never above the git repository's root, only from a
file the user owns), with ``pythonpath = ["src"]`` when the package is not installed, as
pytest's option of that name. A builder is the team's own function that
makes its compiled graph around a chat model::

    def triage(model: BaseChatModel, connections: dict[str, Connection]) -> CompiledStateGraph:

``connections`` (optional) are langchain-mcp-adapters connections by server id: the MCP servers
the Host points the agent at for a Trial (none unless the Case's ``mcp`` fixture serves one). A
builder may be ``async``. It never imports the harness.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from eval_core.hosts import HostOptionError, SettingsRefused, find_project

Builder = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class App:
    """The team's agents: ``spec`` as named, its module, and each agent's builder."""

    spec: str
    module: ModuleType
    builders: Mapping[str, Builder]
    settings: Mapping[str, Any]
    """The ``[tool.eval]`` table it was named in (empty when named by the option)."""


def project_settings(soul_dir: Path) -> tuple[Path, dict[str, Any]] | None:
    """The ``pyproject.toml`` above the Corpus that has a ``[tool.eval]`` table, and the table
    (:func:`eval_core.hosts.find_project`, which checked its ``pythonpath``)."""
    try:
        found = find_project(soul_dir)
    except SettingsRefused as exc:
        raise HostOptionError(str(exc)) from None
    return (found.file, found.table) if found.file is not None else None


def find_app(soul_dir: Path, app: str | None) -> App:
    """The agents named by the option, else by ``[tool.eval]``; refused in one line."""
    found = project_settings(soul_dir)
    spec, source = app, "--host-option app"
    settings: dict[str, Any] = {}
    if found is not None:
        path, settings = found
        _extend_path(path, settings.get("pythonpath", []))
        if spec is None:
            spec, source = settings.get("app"), f"{path} [tool.eval] app"
    if not isinstance(spec, str) or not spec:
        raise HostOptionError(
            "no agents named: give --host-option app=package.module:AGENTS or "
            '[tool.eval] app = "package.module:AGENTS" in the pyproject.toml above the Corpus'
        )
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute.isidentifier():
        raise HostOptionError(f"{source} {spec!r}: expected package.module:NAME")
    try:
        module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # the team's module must not end (or forge the code of) eval
        raise HostOptionError(
            f"{source} {spec!r}: importing {module_name} called sys.exit({exc.code!r})"
        ) from None
    except BaseException as exc:
        raise HostOptionError(
            f"{source} {spec!r}: cannot import {module_name}: {type(exc).__name__}: {exc}"
        ) from None
    agents = getattr(module, attribute, None)
    if not isinstance(agents, Mapping) or not agents:
        raise HostOptionError(
            f"{source} {spec!r}: expected a non-empty mapping of agent names to builders"
        )
    for name, builder in agents.items():
        if not isinstance(name, str) or not callable(builder):
            raise HostOptionError(f"{source} {spec!r}: agent {name!r} has no callable builder")
    return App(spec=spec, module=module, builders=dict(agents), settings=settings)


def _extend_path(pyproject: Path, entries: Any) -> None:
    """``[tool.eval] pythonpath``: folders relative to the pyproject, put first on sys.path."""
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise HostOptionError(f"{pyproject} [tool.eval] pythonpath: expected a list of folders")
    for entry in reversed(entries):
        folder = str((pyproject.parent / entry).resolve())
        if folder not in sys.path:
            sys.path.insert(0, folder)


async def build(builder: Builder, model: Any, connections: Mapping[str, Any]) -> Any:
    """Call the team's builder (awaiting an ``async`` one); the compiled graph it made."""
    parameters = inspect.signature(builder).parameters
    takes = "connections" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
    made = builder(model, connections=dict(connections)) if takes else builder(model)
    if inspect.isawaitable(made):
        made = await made
    if not callable(getattr(made, "ainvoke", None)):
        raise TypeError(f"the builder returned {type(made).__name__}, not a compiled graph")
    return made
