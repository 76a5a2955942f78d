"""The Tools one Trial serves the agent over MCP, and the ``tool`` witness where each call is
received.

Every call that reaches ``/mcp`` is recorded as received (its name, its arguments as JSON
data), then answered: from the Case's ``toolResults`` when the Case scripts that Tool, else by
the team's own Tool server (proxied, :mod:`.team_tools`), else as the scripted binding does (a
failure naming the missing result). What was answered, and with which status, is recorded too.
This is observation: the agent never reports its calls, the harness receives them.

MCP carries no model call id, so a received call is matched to the model's call it answers:
the first not yet matched of the same name and the same arguments, else of the same name (the
arguments then differ from what the model sent, which the Expectations see), else a fresh id.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from mcp import ClientSession, types
from mcp.server.lowlevel import Server

from eval_core.hosts import (
    ModelToolCall,
    ScriptedTools,
    ToolCall,
    ToolDecl,
    ToolResult,
    deep_equal,
    one_line,
)
from eval_host_process.team_tools import result_of


class ToolDesk:
    """One Trial's served Tools and their witness."""

    def __init__(
        self,
        declared: Sequence[ToolDecl],
        scripted: ScriptedTools,
        scripted_names: frozenset[str],
        proxied: frozenset[str],
    ) -> None:
        self.declared = list(declared)
        self.scripted = scripted
        self.scripted_names = scripted_names
        self.proxied = proxied
        # how a proxied call reaches the team's server: set by the Trial's server, which opens
        # the session on the first such call (a Trial that proxies nothing starts no server)
        self.connect: Callable[[], Awaitable[ClientSession]] | None = None
        self.calls: list[ToolCall] = []
        self.results: list[ToolResult] = []
        self._pending: list[ModelToolCall] = []
        self._fresh = 0

    def replied(self, calls: Sequence[ModelToolCall]) -> None:
        """The model asked for these calls (the binding's reply): what received calls answer."""
        self._pending.extend(calls)

    def _call_id(self, name: str, arguments: Any) -> str:
        named = [c for c in self._pending if c.name == name]
        same = next((c for c in named if deep_equal(c.arguments, arguments)), None)
        match = same or (named[0] if named else None)
        if match is not None:
            self._pending.remove(match)
            return match.call_id
        self._fresh += 1
        return f"mcp-{self._fresh}"

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> types.CallToolResult:
        received: Any = dict(arguments or {})
        call_id = self._call_id(name, received)
        self.calls.append(ToolCall(call_id=call_id, name=name, arguments=received))
        if name in self.scripted_names or name not in self.proxied or self.connect is None:
            outcome = self.scripted.execute(name, received)
            status: str = outcome.status
            output, reason = outcome.output, outcome.reason
            if status in ("awaiting_approval", "awaiting_retry"):
                status, reason = "failed", f"{status} is not served by the process Host"
            answer = _scripted_answer(status, output, reason)
        else:
            try:
                answer = await (await self.connect()).call_tool(name, received)
            except Exception as exc:  # the team's server failed: the agent is told, as it would be
                reason = one_line(f"the team's Tool server failed: {type(exc).__name__}: {exc}")
                answer = _scripted_answer("failed", None, reason)
            status, output = result_of(answer)
            reason = _text(answer) if answer.isError else None
            output = None if answer.isError else output
        self.results.append(
            ToolResult(
                call_id=call_id,
                name=name,
                arguments=received,
                status=status,
                output=output,
                reason=reason,
            )
        )
        return answer

    def server(self) -> Server[Any, Any]:
        """The MCP server of this Trial's Tools (low level: arguments reach :meth:`call` as
        received, unvalidated, so the witness sees what the agent sent)."""
        server: Server[Any, Any] = Server("eval-process-tools")
        tools = [
            types.Tool(name=t.name, description=t.description, inputSchema=t.input_schema)
            for t in self.declared
        ]

        @server.list_tools()  # type: ignore[no-untyped-call,untyped-decorator]
        async def list_tools() -> list[types.Tool]:
            return tools

        @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
        async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
            return await self.call(name, arguments)

        return server


def _scripted_answer(status: str, output: Any, reason: str | None) -> types.CallToolResult:
    if status == "succeeded":
        text = output if isinstance(output, str) else json.dumps(output)
        structured = output if isinstance(output, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structuredContent=structured,
            isError=False,
        )
    # as a real MCP server answers an error: the reason as plain text, ``isError`` (the status,
    # failed, denied or invalid_arguments, is the witness's record; MCP has no field for it)
    text = reason or status
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


def _text(result: types.CallToolResult) -> str:
    return "".join(b.text for b in result.content if isinstance(b, types.TextContent))
