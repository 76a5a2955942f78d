"""One Trial's loopback server: the harness as the agent's model and as its Tool server.

On ``127.0.0.1`` and an ephemeral port, on a thread of its own (an event loop, uvicorn): the
three model wires (:mod:`.chat_wire`, :mod:`.responses_wire`, :mod:`.messages_wire`) each
translate a request into the binding's ``ModelCallRequest`` and answer with the Trial's
session's reply (the session is the binding witness: what it records is what the agent sent);
``/mcp`` serves the Trial's Tools (:mod:`.tools`, streamable HTTP, the official SDK). Every
request must carry the Trial's token (``Authorization: Bearer``, or ``x-api-key`` as Anthropic's
clients send it): else ``401``.

A request the harness cannot relay (``400``) or a failure of the binding (``400`` too, so the
agent's client does not retry it) is kept: the Trial errors with it once the agent has ended,
whatever the agent then printed. After a binding failure every further model request is
answered with it, without calling the binding again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import uvicorn
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from eval_core.hosts import ModelCallRequest, ModelReply, ModelSession, one_line
from eval_host_process import chat_wire, messages_wire, responses_wire
from eval_host_process.team_tools import TeamTools
from eval_host_process.tools import ToolDesk
from eval_host_process.wire import Refused, loads

BODY_LIMIT = 16 << 20  # a model request larger than this is refused (413)
START_SECONDS = 10.0
Wire = Callable[[dict[str, Any]], ModelCallRequest]


class _Token:
    """ASGI middleware: every request carries the Trial's token, or is answered 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            given = headers.get("x-api-key") or headers.get("authorization", "").removeprefix(
                "Bearer "
            )
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                await JSONResponse({"error": {"message": "wrong or missing token"}}, 401)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


class _Server(uvicorn.Server):
    """uvicorn, stopped the moment the Trial ends: its own loop looks every 0.1 s, and its
    graceful shutdown waits 0.1 s more for clients; here the client (the agent's process) has
    ended already, so what is left is closed and cancelled at once."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stop = asyncio.Event()

    async def main_loop(self) -> None:
        await self.stop.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        tasks = list(self.server_state.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class _Mcp:
    """``/mcp`` itself (no redirect to ``/mcp/``): the MCP SDK's streamable HTTP transport."""

    def __init__(self, manager: StreamableHTTPSessionManager) -> None:
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.manager.handle_request(scope, receive, send)


class TrialServer:
    """The Trial's server, on a thread of its own; :meth:`close` stops it and its sessions."""

    def __init__(
        self, session: ModelSession, desk: ToolDesk, team: TeamTools | None, token: str, model: str
    ) -> None:
        self.session, self.desk, self.team, self.token, self.model = (
            session,
            desk,
            team,
            token,
            model,
        )
        self.problem: str | None = None  # a request refused, the first one kept
        self.failure: BaseException | None = None  # the binding's failure, raised by the Trial
        self.requests = 0
        self._lock = asyncio.Lock()
        self._wanted, self._linked, self._closing = (
            asyncio.Event(),
            asyncio.Event(),
            asyncio.Event(),
        )
        self._team_session: Any = None
        self._link_error: BaseException | None = None
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        self._ready = threading.Event()
        self._server: _Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name="eval-process-trial", daemon=True)

    def start(self) -> None:
        self._thread.start()
        if not self._ready.wait(START_SECONDS) or self._error is not None:
            self.close()
            raise RuntimeError(f"the Trial's server did not start: {self._error}")

    def _app(self, manager: StreamableHTTPSessionManager) -> ASGIApp:
        routes = [
            Route(
                "/v1/chat/completions",
                self._endpoint(chat_wire.request_of, self._chat),
                methods=["POST"],
            ),
            Route(
                "/v1/responses",
                self._endpoint(responses_wire.request_of, self._responses),
                methods=["POST"],
            ),
            Route(
                "/v1/messages",
                self._endpoint(messages_wire.request_of, self._messages),
                methods=["POST"],
            ),
            Route("/mcp", _Mcp(manager), methods=["GET", "POST", "DELETE"]),
        ]
        return _Token(Starlette(routes=routes), self.token)

    def _serve(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        manager = StreamableHTTPSessionManager(
            self.desk.server(), json_response=True, stateless=True
        )
        config = uvicorn.Config(
            self._app(manager),
            log_level="critical",
            access_log=False,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=1,
        )
        self._loop = asyncio.get_running_loop()
        self._server = _Server(config)
        link = asyncio.create_task(self._link()) if self.team is not None else None
        if link is not None:
            self.desk.connect = self._connect
        try:
            async with manager.run():
                serving = asyncio.create_task(self._server.serve(sockets=[self._socket]))
                while not self._server.started and not serving.done():
                    await asyncio.sleep(0.005)
                self._ready.set()
                await serving
        finally:
            if link is not None:
                self._closing.set()
                if not self._wanted.is_set():
                    link.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await link

    async def _link(self) -> None:
        """The team's Tool server's session, opened on the first proxied call and held (in
        this one task, as anyio wants) until the Trial's server stops."""
        assert self.team is not None
        await self._wanted.wait()
        try:
            async with self.team.session() as session:
                self._team_session = session
                self._linked.set()
                await self._closing.wait()
        except Exception as exc:
            self._link_error = exc
        finally:
            self._linked.set()

    async def _connect(self) -> Any:
        self._wanted.set()
        await self._linked.wait()
        if self._team_session is None:
            raise RuntimeError(f"could not reach it: {self._link_error}")
        return self._team_session

    def close(self) -> None:
        if self._server is not None and self._loop is not None:
            self._server.should_exit = True
            with contextlib.suppress(RuntimeError):  # the loop has ended already
                self._loop.call_soon_threadsafe(self._server.stop.set)
        if self._thread.is_alive():
            self._thread.join(START_SECONDS)
        self._socket.close()

    # the model wires

    def _endpoint(
        self, wire: Wire, answer: Callable[[ModelReply, dict[str, Any]], Response]
    ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            self.requests += 1
            body = await _body(request)
            if isinstance(body, str):
                self.problem = self.problem or body
                return _error(413 if "larger" in body else 400, body, "invalid_request_error")
            try:
                call = wire(body)
            except Refused as exc:
                self.problem = self.problem or one_line(str(exc))
                return _error(400, str(exc), "invalid_request_error")
            reply = await self._complete(call)
            if isinstance(reply, Response):
                return reply
            self.desk.replied(reply.tool_calls)
            return answer(reply, body)

        return endpoint

    async def _complete(self, call: ModelCallRequest) -> ModelReply | Response:
        async with self._lock:  # one model call at a time: the session is the Trial's record
            if self.failure is None:
                try:
                    return await anyio.to_thread.run_sync(self.session.complete, call)
                except Exception as exc:
                    self.failure = exc
            return _error(
                400, f"the harness's model failed: {one_line(str(self.failure))}", "model_error"
            )

    def _chat(self, reply: ModelReply, body: dict[str, Any]) -> Response:
        if body.get("stream"):
            usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return _stream(chat_wire.chunks(reply, self.model, usage))
        return JSONResponse(chat_wire.completion(reply, self.model))

    def _responses(self, reply: ModelReply, body: dict[str, Any]) -> Response:
        if body.get("stream"):
            return _stream(responses_wire.events(reply, self.model))
        return JSONResponse(responses_wire.response(reply, self.model))

    def _messages(self, reply: ModelReply, body: dict[str, Any]) -> Response:
        if body.get("stream"):
            return _stream(messages_wire.events(reply, self.model))
        return JSONResponse(messages_wire.message(reply, self.model))


def _stream(events: Iterator[bytes]) -> Response:
    return StreamingResponse(
        events, media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
    )


def _error(status: int, message: str, kind: str) -> Response:
    body = {
        "type": "error",
        "error": {"message": message, "type": kind, "code": None, "param": None},
    }
    return JSONResponse(body, status)


async def _body(request: Request) -> dict[str, Any] | str:
    """The request's JSON object, or why it is none (a problem of the agent's request)."""
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > BODY_LIMIT:
            return f"{request.url.path}: the request body is larger than {BODY_LIMIT} bytes"
    try:
        body = loads(bytes(data))
    except (ValueError, UnicodeDecodeError):
        return f"{request.url.path}: the request body is not JSON"
    if not isinstance(body, dict):
        return f"{request.url.path}: the request body is not a JSON object"
    return body
