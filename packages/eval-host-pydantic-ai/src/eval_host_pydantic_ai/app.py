"""Where a team's pydantic-ai agents are named: ``--host-option app=package.module:AGENTS``, or
``app`` in the ``[tool.eval]`` table of the project's ``pyproject.toml``.

The core's reader (:func:`eval_core.hosts.import_app`) finds the project upward from the
Corpus's directory, puts its directory and its ``pythonpath`` folders on ``sys.path`` and
imports the module, as every framework Host does; this module reads what it named. ``AGENTS``
is a mapping of names to Agents, a list of Agents (named by their ``name``), or one Agent.
Every problem is a one-line :class:`HostOptionError`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from pydantic_ai.agent import AbstractAgent

from eval_core.hosts import TeamApp, import_app


@dataclass(frozen=True, slots=True)
class App:
    """The team's agents by name, the module that holds them and the project's settings."""

    spec: str
    module: ModuleType
    agents: Mapping[str, AbstractAgent[Any, Any]]
    settings: Mapping[str, Any] = field(default_factory=dict)


def load_app(soul_dir: Path, app: str | None) -> App:
    """Import the team's agents named by ``app`` (or by ``[tool.eval] app``:
    :func:`eval_core.hosts.import_app`)."""
    named = import_app(soul_dir, app)
    agents = _named(named)
    return App(spec=named.spec, module=named.module, agents=agents, settings=named.settings)


def _named(named: TeamApp) -> dict[str, AbstractAgent[Any, Any]]:
    value = named.value
    if isinstance(value, AbstractAgent):
        value = [value]
    if isinstance(value, Mapping):
        found = {str(k): v for k, v in value.items()}
    elif isinstance(value, (list, tuple)):
        found = {}
        for agent in value:
            name = getattr(agent, "name", None)
            if not name:
                raise named.refused("an Agent in the list has no name")
            found[str(name)] = agent
    else:
        raise named.refused(
            f"expected Agents (a mapping, a list or one), got {type(value).__name__}"
        )
    for name, agent in found.items():
        if not isinstance(agent, AbstractAgent):
            raise named.refused(f"{name!r} is a {type(agent).__name__}, not a pydantic-ai Agent")
    if not found:
        raise named.refused("no Agents")
    return found
