"""The fixture MCP provider: a real MCP server (official SDK) the runtime reaches over stdio.

Run as ``python -m eval_expectations_mcp.provider``. It is started once per Sweep; each Trial
acts in its own ``namespace``, so state never leaks between Trials. The provider counts the
``tools/call`` requests it actually served per namespace and exposes the count through a
read-only resource (``eval://calls/{namespace}``): a side channel that is not itself a
``tools/call``, so reading it never moves the count. This is the only module of the package
that imports the MCP SDK (the server side).
"""

from __future__ import annotations

import json
import os
from typing import Any

from mcp.server.fastmcp import FastMCP

server = FastMCP("eval-mcp", log_level="WARNING")
_calls: dict[str, int] = {}
_notes: dict[str, list[dict[str, Any]]] = {}


def _served(namespace: str) -> int:
    _calls[namespace] = _calls.get(namespace, 0) + 1
    return _calls[namespace]


@server.tool()
def status(
    namespace: str, account_id: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Read: which account the provider acted for (a connection check)."""
    _served(namespace)
    return {"accountId": account_id, "connected": True, "echo": arguments or {}}


@server.tool()
def create_note(
    namespace: str, account_id: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Mutating: stores a note in the namespace, acting for the account."""
    _served(namespace)
    notes = _notes.setdefault(namespace, [])
    note = {"noteId": f"note-{len(notes) + 1}", "accountId": account_id, **(arguments or {})}
    notes.append(note)
    return note


@server.resource("eval://calls/{namespace}")
def calls(namespace: str) -> str:
    """The ``tools/call`` requests served in ``namespace`` (read-only side channel)."""
    return json.dumps({"toolsCall": _calls.get(namespace, 0)})


@server.resource("eval://process")
def process() -> str:
    """The provider's process id, so a test can kill the real server mid-Turn."""
    return json.dumps({"pid": os.getpid()})


if __name__ == "__main__":
    server.run("stdio")
