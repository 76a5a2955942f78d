"""MCP integrations as published: read from the active Soul bundle, never from authoring state.

An integration lives at ``integrations/<slug>/mcp.yaml`` in the Soul, in the original's shape::

    server: {id, label, authentication: {type: none}, transport: {type: streamable-http, url}}
    enabled: true
    reviewed: {tools: [{name, description, inputSchema, digest, mutating, requiresApproval}],
               resources: [], prompts: []}

Only the reviewed Tools of an enabled server are published. Each is exposed to the model as
``mcp_<label>_<suffix>``: ``label`` is ``<serverId>_<tool>`` lower-cased, every character outside
``[a-z0-9_]`` replaced by ``_``, cut to 42 characters; ``suffix`` is the first 16 hex digits of the
SHA-256 of the canonical JSON of ``[serverId, tool]``. Renaming either retires the name instead of
silently pointing an old name at a new Tool.

The ``transport.url`` is what the Soul declares; the operator's endpoint configuration
(:class:`agent_runtime.mcp.dispatch.McpEndpoints`) may point the server id elsewhere (a fixture
server on a port chosen at run time), and then wins.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import msgspec

from agent_runtime.soul import files as soul_files

FILENAME = "mcp.yaml"
_LABEL_CHARS = re.compile(r"[^a-z0-9_]")
_DIGEST = re.compile(r"^(?:sha256:)?[0-9a-f]{64}\Z")
_TOP = frozenset({"server", "enabled", "reviewed"})
_SERVER = frozenset({"id", "label", "authentication", "transport"})
_AUTHENTICATION_TYPES = frozenset({"none"})
_TRANSPORT = frozenset({"type", "url"})
_TRANSPORT_TYPES = frozenset({"streamable-http"})
_REVIEWED = frozenset({"tools", "resources", "prompts"})
_TOOL = frozenset({"name", "description", "inputSchema", "digest", "mutating", "requiresApproval"})


class McpConfigError(ValueError):
    """A malformed ``mcp.yaml``: ``key`` is the dotted path of the offending value."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


class McpTool(msgspec.Struct, frozen=True):
    """One reviewed provider Tool as the integration publishes it."""

    integration: str
    """The server id: what the operator's endpoint configuration is keyed by."""
    tool: str
    exposed: str
    description: str
    input_schema: dict[str, Any]
    mutating: bool
    url: str
    """The server's ``transport.url`` as the Soul declares it (required there)."""
    requires_approval: bool = True
    digest: str | None = None


def exposed_name(server_id: str, capability: str) -> str:
    """The stable model-facing name of ``capability`` of server ``server_id``."""
    canonical = json.dumps([server_id, capability], separators=(",", ":"), ensure_ascii=False)
    suffix = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    label = _LABEL_CHARS.sub("_", f"{server_id}_{capability}".lower())[:42]
    return f"mcp_{label}_{suffix}"


def parse_integration(data: Any) -> list[McpTool]:
    """The published Tools of one ``mcp.yaml`` (none when the server is disabled)."""
    top = _mapping(data, "$", _TOP)
    server = _mapping(top.get("server"), "server", _SERVER)
    server_id = _text(server, "server", "id")
    _text(server, "server", "label")
    auth = _mapping(server.get("authentication"), "server.authentication", frozenset({"type"}))
    if auth.get("type") not in _AUTHENTICATION_TYPES:
        raise McpConfigError(
            "server.authentication.type", f"must be one of {sorted(_AUTHENTICATION_TYPES)}"
        )
    transport = _mapping(server.get("transport"), "server.transport", _TRANSPORT)
    if transport.get("type") not in _TRANSPORT_TYPES:
        raise McpConfigError("server.transport.type", f"must be one of {sorted(_TRANSPORT_TYPES)}")
    url = _text(transport, "server.transport", "url")
    enabled = top.get("enabled", True)
    if not isinstance(enabled, bool):
        raise McpConfigError("enabled", "must be true or false")
    reviewed = _mapping(top.get("reviewed", {}), "reviewed", _REVIEWED)
    for key in ("resources", "prompts"):
        if not isinstance(reviewed.get(key, []), list):
            raise McpConfigError(f"reviewed.{key}", "must be a list")
    items = reviewed.get("tools", [])
    if not isinstance(items, list):
        raise McpConfigError("reviewed.tools", "must be a list")
    tools: list[McpTool] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        tools.append(_reviewed_tool(item, f"reviewed.tools[{index}]", seen, server_id, url))
    return tools if enabled else []


def _reviewed_tool(item: Any, where: str, seen: set[str], server_id: str, url: str) -> McpTool:
    """One reviewed Tool of the server, its name not reviewed before (added to ``seen``)."""
    entry = _mapping(item, where, _TOOL)
    name = _text(entry, where, "name")
    if name in seen:
        raise McpConfigError(f"{where}.name", f"Tool {name!r} reviewed twice")
    seen.add(name)
    schema = entry.get("inputSchema")
    if not isinstance(schema, dict):
        raise McpConfigError(f"{where}.inputSchema", "must be a JSON Schema object")
    flags = {}
    for key in ("mutating", "requiresApproval"):
        value = entry.get(key)
        if not isinstance(value, bool):
            raise McpConfigError(f"{where}.{key}", "must be true or false")
        flags[key] = value
    digest = entry.get("digest")
    if digest is not None and (not isinstance(digest, str) or not _DIGEST.match(digest)):
        raise McpConfigError(f"{where}.digest", "must be a sha256 hex digest")
    description = entry.get("description", "")
    if not isinstance(description, str):
        raise McpConfigError(f"{where}.description", "must be a string")
    return McpTool(
        integration=server_id,
        tool=name,
        exposed=exposed_name(server_id, name),
        description=description or f"{server_id}: {name}",
        input_schema=dict(schema),
        mutating=flags["mutating"],
        requires_approval=flags["requiresApproval"],
        url=url,
        digest=digest,
    )


def load_integration(file: Path) -> list[McpTool]:
    """Parse one ``mcp.yaml`` file (``McpConfigError`` or ``OSError``/``yaml.YAMLError``)."""
    return parse_integration(soul_files.load_yaml(soul_files.read_text(file)))


def _mapping(value: Any, key: str, allowed: frozenset[str]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise McpConfigError(key, "must be a mapping")
    if unknown := sorted(str(k) for k in set(value) - allowed):
        where = unknown[0] if key == "$" else f"{key}.{unknown[0]}"
        raise McpConfigError(where, f"unknown key (allowed: {sorted(allowed)})")
    return value


def _text(value: dict[str, Any], key: str, field: str) -> str:
    text = value.get(field)
    if not isinstance(text, str) or not text:
        raise McpConfigError(f"{key}.{field}", "must be a non-empty string")
    return text
