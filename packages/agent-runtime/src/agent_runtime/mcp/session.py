"""One MCP session on the official SDK's client (streamable HTTP), run on the runtime's own event
loop thread for :class:`agent_runtime.mcp.client.McpClients`.

The SDK speaks the protocol (``initialize``, ``notifications/initialized``, the session id and
protocol version headers, JSON and server-sent-event answers); this module adds what the runtime
promises that the SDK does not: an answer is at most :data:`MAX_ANSWER` bytes (counted on
httpx's transport, as the bytes arrive), a failure is known at once with a reason (the SDK
hands some to a message handler and swallows others) instead of at the timeout, a broken
session is dropped without a DELETE, and a kept one is ended by a DELETE we send. The runtime
takes no server-initiated messages (no sampling, no elicitation), so the listening GET stream
the SDK opens is declined on the client with ``405``, as the transport allows a server to.
Imported with the first MCP call: the SDK, httpx and pydantic never load with the runtime.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack, suppress
from importlib.metadata import version
from typing import Any

import httpx
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from agent_runtime.mcp.client import MAX_ANSWER
from agent_runtime.mcp.sdk_noise import quiet

quiet()  # the SDK's own logging of a misbehaving server is counted, not printed

# the runtime as installed: a number written here went stale with the first release after it
CLIENT_INFO = types.Implementation(name="agent-runtime", version=version("agent-runtime"))
CONNECT = "cannot connect: "  # a reason that starts so is the server not being reached
_SETTLE = 0.02  # seconds for the SDK to hand on what it read before the stream ended
_DRAIN = 1.0  # at most this long to read the rest of an answered event stream
_SMALL = 65536  # bytes of an error answer read for its message


class Broken(Exception):  # noqa: N818 - the session's state
    """The server answered, but not as the transport says; the session cannot go on."""


class RpcError(Exception):
    """The server answered the request with a JSON-RPC error (the session is still good)."""


def _status_line(response: httpx.Response, body: bytes) -> str:
    """``HTTP 404 Not Found``, with the JSON-RPC error message the body carries, if any."""
    line = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
    try:
        error = json.loads(body).get("error", {})
        message = error.get("message") if isinstance(error, dict) else None
    except (ValueError, RecursionError, AttributeError):
        message = None
    return f"{line}: {message}" if isinstance(message, str) and message else line


def _reason(error: BaseException) -> str:
    """One line for what went wrong inside the SDK or httpx."""
    if isinstance(error, BaseExceptionGroup):
        return _reason(error.exceptions[0])
    if isinstance(error, httpx.ConnectError):
        return f"{CONNECT}{error}"
    if type(error).__name__ == "ValidationError":  # pydantic's, raised for a non-message
        return "the answer is not a JSON-RPC message (not JSON, or not JSON-RPC)"
    return str(error) or type(error).__name__


class _Capped(httpx.AsyncByteStream):
    """A response body that stops at :data:`MAX_ANSWER` bytes and tells its session why. Closed
    before its end (the SDK stops at its response), the rest is read, for a moment, so the
    connection goes back to the pool instead of being closed."""

    def __init__(self, inner: httpx.AsyncByteStream, session: Session, events: bool) -> None:
        self._inner, self._session, self._events = inner, session, events
        self._chunks = inner.__aiter__()
        self._size, self._ended = 0, False

    async def __aiter__(self) -> Any:
        try:
            async for chunk in self._chunks:
                self._size += len(chunk)
                if self._size > MAX_ANSWER:
                    raise self._session.fail(f"the answer exceeds {MAX_ANSWER} bytes")
                yield chunk
        except (httpx.TransportError, OSError) as error:  # the SDK swallows a cut stream
            self._ended = True
            raise self._session.fail(f"the answer was cut off: {_reason(error)}") from None
        self._ended = True
        if self._events:  # the SDK stops reading at its response: an ended stream had none
            await asyncio.sleep(_SETTLE)  # a reason the SDK found in the stream comes first
            self._session.fail("the event stream ended without a response to the request")

    async def _drain(self) -> None:
        async for chunk in self._chunks:
            self._size += len(chunk)
            if self._size > MAX_ANSWER:
                return
        self._ended = True

    async def aclose(self) -> None:
        if not self._ended:
            with suppress(httpx.HTTPError, OSError, TimeoutError):
                await asyncio.wait_for(self._drain(), _DRAIN)
        await self._inner.aclose()


class _Bounded(httpx.AsyncBaseTransport):
    """httpx's pooled transport, shared by every session of one :class:`McpClients`, with the
    session's limits on each answer. Closing a session's client leaves the pool open."""

    def __init__(self, pool: httpx.AsyncBaseTransport, session: Session) -> None:
        self._pool, self._session = pool, session

    def outgoing(self, request: httpx.Request) -> httpx.Request:
        """The request as sent (a seam for tests that break what the client says)."""
        return request

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":  # the server-initiated stream: declined, see the module
            return httpx.Response(405, request=request)
        response = await self._pool.handle_async_request(self.outgoing(request))
        if request.method != "POST":
            return response
        length = response.headers.get("content-length", "")
        if length.strip().isdigit() and int(length) > MAX_ANSWER:
            await response.aclose()
            raise self._session.fail(
                f"the answer exceeds {MAX_ANSWER} bytes ({int(length)} announced)"
            )
        if response.status_code >= 300:
            body = await _head(response)
            self._session.fail(_status_line(response, body))
            return httpx.Response(response.status_code, headers=response.headers, content=body)
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in ("application/json", "text/event-stream", ""):
            await response.aclose()
            raise self._session.fail(f"unexpected content type {kind!r}")
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        capped = _Capped(stream, self._session, kind == "text/event-stream")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=capped,
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        pass  # the pool belongs to McpClients


async def _head(response: httpx.Response) -> bytes:
    chunks, size = [], 0
    stream = response.stream
    assert isinstance(stream, httpx.AsyncByteStream)
    try:
        async for chunk in stream:
            chunks.append(chunk)
            size += len(chunk)
            if size >= _SMALL:
                break
    finally:
        await stream.aclose()
    return b"".join(chunks)[:_SMALL]


class Session:
    """One (url, credential): its httpx client, the SDK's transport and ``ClientSession``, all
    held open by one owner task until :meth:`stop`. Every method runs on the loop thread."""

    def __init__(self, url: str, credential: str, pool: httpx.AsyncBaseTransport) -> None:
        self.url, self.key = url, (url, credential)
        self.session_id: str | None = None
        self.version: str | None = None
        self._headers = {"Authorization": f"Bearer {credential}"}
        self._pool = pool
        self._broken: asyncio.Future[str] | None = None
        self._ready: asyncio.Future[ClientSession] | None = None
        self._stop: asyncio.Event | None = None
        self._delete = False
        self._owner: asyncio.Task[None] | None = None

    def fail(self, reason: str) -> Broken:
        """Mark the session broken (the first reason wins); the exception to raise, if any."""
        if self._broken is not None and not self._broken.done():
            self._broken.set_result(reason)
        return Broken(reason)

    async def _incoming(self, message: Any) -> None:
        if isinstance(message, Exception):  # what the SDK could not read: the session is done
            self.fail(_reason(message))

    async def _own(self, transport: _Bounded) -> None:
        assert self._ready is not None and self._stop is not None
        try:
            async with AsyncExitStack() as stack:
                http = httpx.AsyncClient(
                    transport=transport, headers=self._headers, trust_env=False, timeout=None
                )
                read, write, session_id = await stack.enter_async_context(
                    streamable_http_client(self.url, http_client=http, terminate_on_close=False)
                )
                session = await stack.enter_async_context(
                    ClientSession(read, write, message_handler=self._incoming,
                                  client_info=CLIENT_INFO)
                )  # fmt: skip
                result = await session.initialize()
                self.session_id, self.version = session_id(), str(result.protocolVersion)
                self._ready.set_result(session)
                await self._stop.wait()
                if self._delete and self.session_id is not None:
                    await self._end(http)
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # every failure is the session's reason
            self.fail(_reason(error))
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise

    async def _end(self, http: httpx.AsyncClient) -> None:
        """DELETE the session (best effort: the server may be gone already)."""
        headers = {
            "Mcp-Session-Id": self.session_id or "",
            "MCP-Protocol-Version": str(self.version),
        }
        with suppress(httpx.HTTPError, Broken, OSError, TimeoutError):
            await asyncio.wait_for(http.delete(self.url, headers=headers), 5.0)

    async def _race(self, work: Any, timeout: float) -> Any:
        """``work``'s result, unless the session breaks first (:class:`Broken`) or the time
        runs out (:class:`TimeoutError`)."""
        assert self._broken is not None
        task = asyncio.ensure_future(work)
        done, _ = await asyncio.wait(
            {task, self._broken}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done and not (self._broken.done() and task.exception() is not None):
            return task.result()
        task.cancel()
        if self._broken.done():
            raise Broken(self._broken.result())
        raise TimeoutError

    async def call(self, name: str, arguments: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One ``tools/call`` (the session opened first if it is not): the result's JSON."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        if self._owner is None:
            self._broken, self._ready, self._stop = (
                loop.create_future(),
                loop.create_future(),
                asyncio.Event(),
            )
            self._owner = asyncio.create_task(self._own(_Bounded(self._pool, self)))
        assert self._ready is not None
        session: ClientSession = await self._race(asyncio.shield(self._ready), timeout)
        request = types.ClientRequest(
            types.CallToolRequest(
                params=types.CallToolRequestParams(name=name, arguments=arguments)
            )
        )  # sent as is: ``session.call_tool`` would also ask for ``tools/list`` to check results
        try:
            result = await self._race(
                session.send_request(request, types.CallToolResult), deadline - loop.time()
            )
        except McpError as error:
            raise RpcError(error.error.message) from None
        dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        return dumped

    async def stop(self, delete: bool) -> None:
        """End the owner task: after a DELETE if ``delete``, else at once (a broken session)."""
        if self._owner is None or self._stop is None:
            return
        self._delete = delete
        self._stop.set()
        with suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._owner), 6.0 if delete else 0)
        if not self._owner.done():
            self._owner.cancel()
            with suppress(BaseException):  # a cancelled session has nothing to say
                await self._owner
