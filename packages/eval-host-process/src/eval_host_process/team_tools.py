"""The team's own Tool server (host option ``tools_server``), which the harness proxies.

``tools_server`` is a command (shlex-split; an MCP server over stdio, started in the project's
root) or an ``http://127.0.0.1:<port>/...`` URL (streamable HTTP, on loopback only). Its Tools
are listed once at load (their declarations are what the agent is served and what the
corpusHash holds); each Trial opens a session of its own and closes it at the Trial's end: a
stdio server is started fresh per Trial, so one Trial's writes (a refund) never reach another
(a Python one is forked by the fork-server, :mod:`.forked_stdio`, unless ``start=spawn``).
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import tempfile
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client

from eval_core.hosts import HostOptionError, ToolDecl, one_line

if TYPE_CHECKING:
    from eval_host_process.fork_server import ForkServers

LIST_SECONDS = 60.0
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class TeamTools:
    """Where the team's Tool server is, and how to reach it."""

    spec: str
    root: Path
    env: Mapping[str, str]
    forks: ForkServers | None = None  # a Python stdio server is forked by these (Trials only)

    @classmethod
    def of(cls, spec: str, root: Path, env: Mapping[str, str]) -> TeamTools:
        if spec.startswith(("http://", "https://")):
            host = urlsplit(spec).hostname
            if spec.startswith("https://") or host not in LOOPBACK:
                raise HostOptionError(
                    f"tools_server {spec!r}: an http URL on 127.0.0.1 only (or a command)"
                )
        elif not shlex.split(spec):
            raise HostOptionError("tools_server is empty: give a command or an http URL")
        return cls(spec, root, env)

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[ClientSession]:
        """A session with the server, initialised; the server (stdio) ends with it."""
        if self.spec.startswith("http"):
            async with (
                streamablehttp_client(self.spec) as (read, write, _),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session
            return
        argv = shlex.split(self.spec)
        forked = self.forks.server_for(argv) if self.forks is not None else None
        if forked is not None and forked.failure is None:  # else started, saying for itself
            from eval_host_process.forked_stdio import forked_stdio

            async with (
                forked_stdio(forked, argv, self.root, self.env) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session
            return
        params = StdioServerParameters(
            command=argv[0], args=argv[1:], env=dict(self.env), cwd=str(self.root)
        )
        with tempfile.TemporaryFile(mode="w+") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                yield session

    def declarations(self) -> dict[str, ToolDecl]:
        """The server's Tools, listed once (at load): a one-line refusal when it cannot be."""

        async def listing() -> list[types.Tool]:
            async with self.session() as session:
                return (await session.list_tools()).tools

        try:
            tools = asyncio.run(asyncio.wait_for(listing(), LIST_SECONDS))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise HostOptionError(
                f"tools_server {self.spec!r}: could not list its Tools: {_leaf(exc)}"
            ) from None
        return {
            tool.name: ToolDecl(
                name=tool.name,
                input_schema=dict(tool.inputSchema),
                description=tool.description,
            )
            for tool in tools
        }


def _leaf(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return one_line(f"{type(exc).__name__}: {text}")


def result_of(result: types.CallToolResult) -> tuple[str, Any]:
    """A proxied result as the witness records it: its status and its output (structured
    content, else the text parsed as JSON when it is JSON, else the text)."""
    from eval_host_process.wire import loads

    status = "failed" if result.isError else "succeeded"
    if result.structuredContent is not None:
        return status, result.structuredContent
    texts = [b.text for b in result.content if isinstance(b, types.TextContent)]
    text = "".join(texts)
    with contextlib.suppress(ValueError):
        return status, loads(text)
    return status, text
