"""Where a team's pydantic-ai agents are named: ``--host-option app=package.module:AGENTS``, or
``app`` in the ``[tool.eval]`` table of the project's ``pyproject.toml``.

The project is found upward from the Corpus's directory (the Corpus lives in the team's
project) by the core's finder (:func:`eval_core.hosts.find_project`: never above the git
repository's root, and only from a file the user owns); its directory and its ``pythonpath``
folders go on ``sys.path`` so ``package.module`` imports as the team's own tests would import
it. ``AGENTS`` is a mapping of names to Agents, a list of Agents (named by their ``name``), or
one Agent. Every problem is a one-line :class:`HostOptionError`.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic_ai.agent import AbstractAgent

from eval_core.hosts import HostOptionError, SettingsRefused, find_project

TABLE = "tool.eval"


@dataclass(frozen=True, slots=True)
class App:
    """The team's agents by name, the module that holds them and the project's settings."""

    spec: str
    module: ModuleType
    agents: Mapping[str, AbstractAgent[Any, Any]]
    settings: Mapping[str, Any] = field(default_factory=dict)


def load_app(soul_dir: Path, app: str | None) -> App:
    """Import the team's agents named by ``app`` (or by ``[tool.eval] app``)."""
    try:
        found = find_project(soul_dir)
    except SettingsRefused as exc:
        raise HostOptionError(str(exc)) from None
    project, settings = (found.root, found.table) if found.file is not None else (None, {})
    spec = app if app is not None else settings.get("app")
    if not isinstance(spec, str) or not spec:
        raise HostOptionError(
            "no agents named: give --host-option app=package.module:AGENTS, or app in the "
            f"[{TABLE}] table of the project's pyproject.toml"
        )
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise HostOptionError(f"app {spec!r}: expected package.module:AGENTS")
    for folder in (*reversed(found.pythonpath), project):
        if folder is not None and str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # the team's module must not end (or forge the code of) eval
        raise HostOptionError(
            f"app {spec!r}: importing {module_name} called sys.exit({exc.code!r})"
        ) from None
    except BaseException as exc:
        raise HostOptionError(
            f"app {spec!r}: importing {module_name} raised {type(exc).__name__}: {exc}"
        ) from None
    if not hasattr(module, attribute):
        raise HostOptionError(f"app {spec!r}: {module_name} has no {attribute!r}")
    agents = _named(spec, getattr(module, attribute))
    return App(spec=spec, module=module, agents=agents, settings=settings)


def _named(spec: str, value: Any) -> dict[str, AbstractAgent[Any, Any]]:
    if isinstance(value, AbstractAgent):
        value = [value]
    if isinstance(value, Mapping):
        found = {str(k): v for k, v in value.items()}
    elif isinstance(value, (list, tuple)):
        found = {}
        for agent in value:
            name = getattr(agent, "name", None)
            if not name:
                raise HostOptionError(f"app {spec!r}: an Agent in the list has no name")
            found[str(name)] = agent
    else:
        raise HostOptionError(
            f"app {spec!r}: expected Agents (a mapping, a list or one), got {type(value).__name__}"
        )
    for name, agent in found.items():
        if not isinstance(agent, AbstractAgent):
            raise HostOptionError(
                f"app {spec!r}: {name!r} is a {type(agent).__name__}, not a pydantic-ai Agent"
            )
    if not found:
        raise HostOptionError(f"app {spec!r}: no Agents")
    return found
