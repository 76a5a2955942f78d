"""The agents manifest: which agents a team's project runs, how, and with which Tools.

A TOML file (host option ``agents``; by default ``agents.toml`` in the project's root, the
folder of the ``pyproject.toml`` found upward from the Corpus), read through the bounded
reader::

    [agents.desk]
    command = "python -m desk.agent"      # else the host option ``command``
    tools = ["lookup_order", "refund"]    # served by the harness over MCP: witnessed
    internal_tools = ["format_date"]      # implemented inside the agent: never witnessed
    instructions_file = "desk/prompt.md"  # the text the model is given (grounding)

    [tools.lookup_order]                  # a declaration, when no tools_server lists it
    description = "Look an order up."
    parameters = { type = "object", properties = { order_id = { type = "string" } } }

Every problem is a one-line :class:`HostOptionError` naming the file and the key.
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_core.hosts import HostOptionError, NotReadable, ToolDecl, read_regular

MANIFEST_BYTES = 1 << 20
INSTRUCTIONS_BYTES = 1 << 20
DEFAULT = "agents.toml"


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """One agent of the manifest."""

    name: str
    command: tuple[str, ...] | None
    tools: tuple[str, ...]
    internal_tools: tuple[str, ...]
    instructions: str | None


@dataclass(frozen=True, slots=True)
class Manifest:
    path: Path
    agents: Mapping[str, AgentSpec]
    tools: Mapping[str, ToolDecl]


def _refuse(path: Path, key: str, reason: str) -> HostOptionError:
    return HostOptionError(f"{path}: {key}: {reason}")


def read_manifest(path: Path, root: Path) -> Manifest:
    """The manifest at ``path``; ``instructions_file`` paths are read relative to ``root``."""
    try:
        data = read_regular(path, MANIFEST_BYTES)
    except NotReadable as exc:
        raise HostOptionError(
            f"the agents manifest {path} cannot be read: {exc} (host option agents=)"
        ) from None
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise _refuse(path, "$", f"not TOML: {exc}") from None
    agents_table = document.get("agents")
    if not isinstance(agents_table, dict) or not agents_table:
        raise _refuse(path, "agents", "no [agents.<name>] table")
    tools = {name: _tool(path, name, raw) for name, raw in _table(path, document, "tools").items()}
    agents = {name: _agent(path, root, str(name), raw) for name, raw in agents_table.items()}
    return Manifest(path=path, agents=agents, tools=tools)


def _table(path: Path, document: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = document.get(key, {})
    if not isinstance(value, dict):
        raise _refuse(path, key, "must be a table")
    return value


def _names(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _refuse(path, key, "must be a list of Tool names")
    return tuple(value)


def _agent(path: Path, root: Path, name: str, raw: Any) -> AgentSpec:
    at = f"agents.{name}"
    if not isinstance(raw, dict):
        raise _refuse(path, at, "must be a table")
    unknown = sorted(set(raw) - {"command", "tools", "internal_tools", "instructions_file"})
    if unknown:
        raise _refuse(path, f"{at}.{unknown[0]}", "not a key of an agent")
    command = raw.get("command")
    argv: tuple[str, ...] | None = None
    if command is not None:
        try:
            argv = tuple(shlex.split(command)) if isinstance(command, str) else ()
        except ValueError as exc:
            raise _refuse(path, f"{at}.command", f"cannot be split: {exc}") from None
        if not argv:
            raise _refuse(path, f"{at}.command", "must be a non-empty command line")
    tools = _names(path, f"{at}.tools", raw.get("tools"))
    internal = _names(path, f"{at}.internal_tools", raw.get("internal_tools"))
    both = sorted(set(tools) & set(internal))
    if both:
        raise _refuse(path, at, f"{both[0]!r} is both served (tools) and internal")
    instructions = None
    file = raw.get("instructions_file")
    if file is not None:
        if not isinstance(file, str) or not file:
            raise _refuse(path, f"{at}.instructions_file", "must be a path")
        try:
            instructions = read_regular(root / file, INSTRUCTIONS_BYTES).decode("utf-8")
        except (NotReadable, UnicodeDecodeError) as exc:
            raise _refuse(path, f"{at}.instructions_file", f"{file}: {exc}") from None
    return AgentSpec(name, argv, tools, internal, instructions)


def _tool(path: Path, name: str, raw: Any) -> ToolDecl:
    at = f"tools.{name}"
    if not isinstance(raw, dict):
        raise _refuse(path, at, "must be a table")
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise _refuse(path, f"{at}.description", "must be text")
    schema = raw.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(schema, dict):
        raise _refuse(path, f"{at}.parameters", "must be a JSON schema (a table)")
    return ToolDecl(name=name, input_schema=schema, description=description)
