"""The runtime's MCP client: the one module that imports the MCP SDK on the runtime side.

An integration's server is reached over streamable HTTP. Each connected account is its own
authenticated connection (its credential as a bearer token), so the provider always knows
which account a ``tools/call`` acts for and the model's arguments travel unchanged.
:class:`McpClients` keeps one session per (server, credential) on a background event loop, so
the synchronous tool loop can call it. Every request is bounded by a timeout: a server that dies
or stalls mid-Turn is a :class:`ProviderUnavailable` the dispatcher records as a failed Tool
result, never a hang.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # asyncio and ssl load with the first MCP Case, not with the runtime
    import asyncio
    import ssl
    from concurrent.futures import Future

    from mcp import ClientSession

DEFAULT_TIMEOUT = 5.0


class ProviderUnavailable(Exception):  # noqa: N818 - it names a state, not a bug
    """The provider could not be reached, died, or did not answer in time."""


@functools.cache
def _import_sdk() -> None:
    """Import the MCP SDK in the caller's thread, once per process, before any timed wait: it
    takes seconds on a loaded machine, and the timeout bounds the server, not our imports."""
    import httpx  # noqa: F401
    import mcp.client.streamable_http  # noqa: F401


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context per process: loading the CA bundle costs ~80 ms each time."""
    import httpx

    return httpx.create_ssl_context()


class _Connection:
    """One open session; ``closing`` ends it on the loop."""

    __slots__ = ("closing", "serving", "session")

    def __init__(self) -> None:
        self.session: ClientSession | None = None
        self.closing: asyncio.Event | None = None
        self.serving: Future[None] | None = None


class McpClients:
    """Sessions to MCP servers, one per (url, credential), usable from synchronous code."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        import asyncio

        self.timeout = timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._open: dict[tuple[str, str], _Connection] = {}

    async def _serve(
        self, url: str, credential: str, conn: _Connection, ready: Future[None]
    ) -> None:
        # The SDK is imported on the first connection (by _session, before the timed wait):
        # Sweeps without MCP never pay for it.
        import asyncio

        import httpx
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        conn.closing = asyncio.Event()
        http = httpx.AsyncClient(
            headers={"Authorization": f"Bearer {credential}"},
            timeout=httpx.Timeout(self.timeout),
            trust_env=False,
            verify=_tls(),
        )
        try:
            async with (
                http,
                streamable_http_client(url, http_client=http) as (r, w, _),
                ClientSession(r, w) as session,
            ):
                await session.initialize()
                conn.session = session
                ready.set_result(None)
                await conn.closing.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            if not isinstance(error, Exception):
                raise
        finally:
            conn.session = None

    def _session(self, url: str, credential: str) -> ClientSession:
        conn = self._open.get((url, credential))
        if conn is not None and conn.session is not None:
            return conn.session
        import asyncio
        from concurrent.futures import Future

        _import_sdk()
        conn = _Connection()
        ready: Future[None] = Future()
        conn.serving = asyncio.run_coroutine_threadsafe(
            self._serve(url, credential, conn, ready), self._loop
        )
        try:
            ready.result(timeout=self.timeout)
        except Exception as error:
            raise ProviderUnavailable(f"cannot connect to the MCP server {url}: {error}") from error
        self._open[(url, credential)] = conn
        assert conn.session is not None
        return conn.session

    def call_tool(
        self, url: str, credential: str, name: str, arguments: dict[str, Any]
    ) -> tuple[bool, Any, str]:
        """One ``tools/call`` for the account ``credential`` authenticates: (is_error,
        structuredContent, text)."""
        session = self._session(url, credential)

        async def call() -> tuple[bool, Any, str]:
            result = await session.call_tool(
                name, arguments, read_timeout_seconds=timedelta(seconds=self.timeout)
            )
            text = "".join(getattr(part, "text", "") for part in result.content)
            return bool(result.isError), result.structuredContent, text

        import asyncio

        future = asyncio.run_coroutine_threadsafe(call(), self._loop)
        try:
            return future.result(timeout=self.timeout)
        except TimeoutError as error:
            future.cancel()
            self._drop(url, credential)
            raise ProviderUnavailable(
                f"the MCP server {url} did not answer within {self.timeout:g}s"
            ) from error
        except Exception as error:
            self._drop(url, credential)
            raise ProviderUnavailable(f"the MCP server {url} failed: {error}") from error

    def _drop(self, url: str, credential: str) -> None:
        conn = self._open.pop((url, credential), None)
        if conn is not None:
            self._end(conn)

    def _end(self, conn: _Connection) -> None:
        if conn.closing is not None and conn.serving is not None and not conn.serving.done():
            self._loop.call_soon_threadsafe(conn.closing.set)
            with contextlib.suppress(Exception):  # closing a dead connection is not an error
                conn.serving.result(timeout=self.timeout)

    def close(self) -> None:
        """End every session, then the loop thread."""
        while self._open:
            self._end(self._open.popitem()[1])
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5.0)
