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

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from eval_core.hosts import import_app

Builder = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class App:
    """The team's agents: ``spec`` as named, its module, and each agent's builder."""

    spec: str
    module: ModuleType
    builders: Mapping[str, Builder]
    settings: Mapping[str, Any]
    """The ``[tool.eval]`` table it was named in (empty when named by the option)."""


def find_app(soul_dir: Path, app: str | None) -> App:
    """The agents named by the option, else by ``[tool.eval]``
    (:func:`eval_core.hosts.import_app`); refused in one line."""
    named = import_app(soul_dir, app)
    agents = named.value
    if not isinstance(agents, Mapping) or not agents:
        raise named.refused("expected a non-empty mapping of agent names to builders")
    for name, builder in agents.items():
        if not isinstance(name, str) or not callable(builder):
            raise named.refused(f"agent {name!r} has no callable builder")
    return App(spec=named.spec, module=named.module, builders=dict(agents), settings=named.settings)


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
