"""The agents the Host conformance check probes: a support agent with the example's help
centre as its MCP server (so ``close()`` must end a child process), and one whose own Tool
raises. Its own objects: an MCP toolset is bound to the Host loop that opened it, so two Hosts
alive at once (this one beside the session's example Host) must not share one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from fastmcp.client.transports import PythonStdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset

EXAMPLE = Path(__file__).parents[3] / "examples" / "pydantic-ai-support"
sys.path.insert(0, str(EXAMPLE))

from support_agent import orders  # noqa: E402
from support_agent.agent import INSTRUCTIONS  # noqa: E402

help_centre = MCPToolset(
    PythonStdioTransport(EXAMPLE / "support_agent" / "help_server.py", python_cmd=sys.executable),
    id="acme-help-probe",
)
support = Agent(name="support", instructions=INSTRUCTIONS, toolsets=[help_centre])


@support.tool_plain
def lookup_order(order_id: str) -> dict[str, Any]:
    """Look an order up by its id (like A-1001)."""
    return orders.lookup(order_id)


broken = Agent(name="broken", instructions="You run the stock count.")


@broken.tool_plain
def explode() -> str:
    """Count the stock (its database is gone)."""
    raise ConnectionError("the stock database refused the connection")


AGENTS = {"support": support, "broken": broken}
