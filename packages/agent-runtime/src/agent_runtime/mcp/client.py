"""The runtime's MCP client: synchronous calls on the official ``mcp`` SDK's client.

An integration's server is reached over streamable HTTP by the SDK (``mcp.ClientSession`` on
``streamable_http_client``), one session per connected account, its credential as a bearer
token, so the provider always knows which account a ``tools/call`` acts for and the model's
arguments travel unchanged. The SDK is async and the runtime's Tool loop is not:
:class:`McpClients` runs one event loop on a thread of its own (started with the first call,
ended by :meth:`McpClients.close`) and hands each call to it, one request at a time on each
session. Every request is bounded by a timeout and every answer by a size
(:mod:`agent_runtime.mcp.session`): a server that dies, stalls or answers nonsense mid-Turn is
a :class:`ProviderUnavailable` the dispatcher records as a failed Tool result, never a hang.
Nothing of the SDK loads before the first call: a Sweep with no MCP Case never imports it.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the SDK, httpx and asyncio load with the first MCP call
    import ssl

    import httpx

    from agent_runtime.mcp.session import Session

DEFAULT_TIMEOUT = 5.0
MAX_ANSWER = 8 * 1024 * 1024  # bytes of one answer (JSON body or event stream)
PROTOCOL_VERSION = "2025-11-25"  # what the SDK's ``initialize`` asks for
_REASON = 2000  # characters of a server's error message kept in a refusal


class ProviderUnavailable(Exception):  # noqa: N818 - it names a state, not a bug
    """The provider could not be reached, died, or did not answer in time."""


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _REASON else line[: _REASON - 1] + "…"


def _checked_url(url: str) -> None:
    """Refuse at once what is no http(s) URL (the SDK would fail inside its task group)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port out of range raises here
    except ValueError as error:
        raise ProviderUnavailable(f"cannot connect to the MCP server {url}: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProviderUnavailable(
            f"cannot connect to the MCP server {url}: not an http(s) URL"
        ) from None


class _Loop:
    """An event loop on a daemon thread, for synchronous callers."""

    def __init__(self) -> None:
        import asyncio

        from agent_runtime.mcp.sdk_noise import loop_exception

        self.loop = asyncio.new_event_loop()
        self.loop.set_exception_handler(loop_exception)  # counted, never a stderr traceback
        self.thread = threading.Thread(target=self.loop.run_forever, name="mcp-client", daemon=True)
        self.thread.start()

    def run(self, work: Any, timeout: float) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        if not self.thread.is_alive():
            self.loop.close()


class McpClients:
    """Sessions to MCP servers, one per (url, credential), usable from synchronous code and
    from several threads at once (each session takes one request at a time)."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._open: dict[tuple[str, str], Session] = {}
        self._busy: dict[tuple[str, str], threading.Lock] = {}
        self._loop: _Loop | None = None
        self._pool: httpx.AsyncHTTPTransport | None = None

    def _session(self, url: str, credential: str) -> tuple[Session, threading.Lock]:
        from agent_runtime.mcp.session import Session

        with self._lock:
            if self._loop is None:
                self._loop, self._pool = _Loop(), _pool()
            session = self._open.get((url, credential))
            if session is None:
                assert self._pool is not None
                session = self._open[(url, credential)] = Session(url, credential, self._pool)
            return session, self._busy.setdefault((url, credential), threading.Lock())

    def _run(self, work: Any) -> Any:
        assert self._loop is not None
        return self._loop.run(work, self.timeout + 10.0)  # the work keeps its own deadline

    def call_tool(
        self, url: str, credential: str, name: str, arguments: dict[str, Any]
    ) -> tuple[bool, Any, str]:
        """One ``tools/call`` for the account ``credential`` authenticates: (is_error,
        structuredContent, text)."""
        _checked_url(url)
        from agent_runtime.mcp.session import CONNECT, Broken, RpcError

        session, busy = self._session(url, credential)
        with busy:
            try:
                result = self._run(session.call(name, arguments, self.timeout))
            except RpcError as error:  # the server answered: its session is still good
                if session.version is None:
                    self._drop(session)
                raise ProviderUnavailable(
                    f"the MCP server {url} failed: {_one_line(str(error))}"
                ) from None
            except TimeoutError:
                self._drop(session)
                raise ProviderUnavailable(
                    f"the MCP server {url} did not answer within {self.timeout:g}s"
                ) from None
            except Broken as error:
                self._drop(session)
                reason = _one_line(str(error))
                if reason.startswith(CONNECT):
                    raise ProviderUnavailable(
                        f"cannot connect to the MCP server {url}: {reason.removeprefix(CONNECT)}"
                    ) from None
                raise ProviderUnavailable(f"the MCP server {url} failed: {reason}") from None
            except BaseException:  # an interrupt mid-answer: the session is unusable
                self._drop(session)
                raise
        content = result.get("content")
        parts = content if isinstance(content, list) else []
        text = "".join(
            p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
        return bool(result.get("isError")), result.get("structuredContent"), text

    def _drop(self, session: Session) -> None:
        """Forget a session that failed (its server is not asked to end it)."""
        with self._lock:
            if self._open.get(session.key) is session:
                del self._open[session.key]
        self._run(session.stop(delete=False))

    def close(self) -> None:
        """End every session (a DELETE each, best effort), the connection pool and the loop."""
        with self._lock:
            sessions, self._open = list(self._open.values()), {}
            loop, pool, self._loop, self._pool = self._loop, self._pool, None, None
            busy, self._busy = self._busy, {}
        if loop is None:
            return
        for session in sessions:
            with busy.get(session.key, threading.Lock()):
                loop.run(session.stop(delete=True), self.timeout + 10.0)
        if pool is not None:
            loop.run(pool.aclose(), 5.0)
        loop.close()


def _pool() -> httpx.AsyncHTTPTransport:
    """httpx's pooled transport: no proxy from the environment, one verifying TLS context."""
    import httpx

    return httpx.AsyncHTTPTransport(verify=_tls(), trust_env=False, retries=0)


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context per process: loading the CA bundle costs ~80 ms each time."""
    import ssl

    return ssl.create_default_context()
