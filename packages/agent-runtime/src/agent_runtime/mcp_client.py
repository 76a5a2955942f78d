"""The runtime's MCP client: the one module that imports the MCP SDK on the runtime side.

:class:`McpProvider` starts a provider as a stdio subprocess (real JSON-RPC framing) once and
keeps one session open on a background event loop, so the synchronous tool loop can call it.
Every request is bounded by a timeout: a provider that dies or stalls mid-Turn turns into a
:class:`ProviderUnavailable` the dispatcher records as a failed Tool result, never a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp import ClientSession

DEFAULT_TIMEOUT = 5.0


class ProviderUnavailable(Exception):  # noqa: N818 - it names a state, not a bug
    """The provider could not be reached, died, or did not answer in time."""


class McpProvider:
    """One provider subprocess and its session, usable from synchronous code."""

    def __init__(self, command: Sequence[str], timeout: float = DEFAULT_TIMEOUT) -> None:
        self.command = list(command)
        self.timeout = timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._session: ClientSession | None = None
        self._broken = False  # a request failed on the transport: never trust it again
        self._closing: asyncio.Event | None = None
        self._serving: Future[None] | None = None
        ready: Future[None] = Future()
        self._serving = asyncio.run_coroutine_threadsafe(self._serve(ready), self._loop)
        try:
            ready.result(timeout=max(timeout, 30.0))
        except Exception as error:
            self.close()
            raise ProviderUnavailable(f"the MCP provider did not start: {error}") from error

    async def _serve(self, ready: Future[None]) -> None:
        # The SDK is imported when a provider starts, so Sweeps without MCP never pay for it.
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        self._closing = asyncio.Event()
        params = StdioServerParameters(command=self.command[0], args=self.command[1:])
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                self._session = session
                ready.set_result(None)
                await self._closing.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            if not isinstance(error, Exception):
                raise
        finally:
            self._session = None

    @property
    def alive(self) -> bool:
        serving = self._serving
        return (
            self._session is not None
            and not self._broken
            and not (serving is not None and serving.done())
        )

    def _run(self, coro: Any) -> Any:
        if not self.alive:
            coro.close()
            raise ProviderUnavailable("the MCP provider is not running")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout=self.timeout)
        except TimeoutError as error:
            future.cancel()
            self._broken = True
            raise ProviderUnavailable(
                f"the MCP provider did not answer within {self.timeout:g}s"
            ) from error
        except ProviderUnavailable:
            raise
        except Exception as error:
            self._broken = True
            raise ProviderUnavailable(f"the MCP provider failed: {error}") from error

    def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[bool, Any, str]:
        """One ``tools/call``: (is_error, structuredContent, text)."""

        async def call() -> tuple[bool, Any, str]:
            assert self._session is not None
            result = await self._session.call_tool(
                name, arguments, read_timeout_seconds=timedelta(seconds=self.timeout)
            )
            text = "".join(getattr(part, "text", "") for part in result.content)
            return bool(result.isError), result.structuredContent, text

        result: tuple[bool, Any, str] = self._run(call())
        return result

    def read_json(self, uri: str) -> Any:
        """A JSON resource of the provider (``resources/read``, never a ``tools/call``)."""

        async def read() -> Any:
            from mcp.types import TextResourceContents
            from pydantic import AnyUrl

            assert self._session is not None
            result = await self._session.read_resource(AnyUrl(uri))
            for part in result.contents:
                if isinstance(part, TextResourceContents):
                    return json.loads(part.text)
            raise ProviderUnavailable(f"resource {uri} has no text")

        return self._run(read())

    def close(self) -> None:
        """End the session and the subprocess, then the loop thread."""
        closing = self._closing
        if closing is not None and self._serving is not None and not self._serving.done():
            self._loop.call_soon_threadsafe(closing.set)
            with contextlib.suppress(Exception):  # closing a dead provider is not an error
                self._serving.result(timeout=5.0)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5.0)
