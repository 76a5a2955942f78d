"""MCP integrations as published: read from the active Soul bundle, never from authoring state.

An integration lives at ``integrations/<slug>/INTEGRATION.yaml`` in the Soul. Each of its Tools
is exposed to the model under a stable name derived from the integration and the Tool
(``mcp_<slug>_<tool>_<16 hex>``), so renaming either retires the name instead of silently
pointing an old name at a new Tool.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

FILENAME = "INTEGRATION.yaml"
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # read on every L3 Turn


@dataclass(frozen=True, slots=True)
class McpTool:
    """One provider Tool as the integration publishes it."""

    integration: str
    tool: str
    exposed: str
    description: str
    input_schema: dict[str, Any]
    mutating: bool


def exposed_name(integration: str, tool: str) -> str:
    """The stable model-facing name of ``tool`` of ``integration``."""
    digest = hashlib.sha256(f"{integration}/{tool}".encode()).hexdigest()[:16]
    return f"mcp_{integration.replace('-', '_')}_{tool}_{digest}"


def mcp_integrations_from_bundle(bundle: Path) -> dict[str, McpTool]:
    """Every published MCP Tool of the bundle, by exposed name."""
    folder = Path(bundle) / "integrations"
    tools: dict[str, McpTool] = {}
    if not folder.is_dir():
        return tools
    for entry in sorted(folder.iterdir()):
        file = entry / FILENAME
        if not file.is_file():
            continue
        data = yaml.load(file.read_text(encoding="utf-8"), Loader=_LOADER) or {}
        for item in data.get("tools") or ():
            name = str(item["name"])
            exposed = exposed_name(entry.name, name)
            tools[exposed] = McpTool(
                integration=entry.name,
                tool=name,
                exposed=exposed,
                description=str(item.get("description") or ""),
                input_schema=dict(item.get("inputSchema") or {"type": "object"}),
                mutating=bool(item.get("mutating", False)),
            )
    return tools
