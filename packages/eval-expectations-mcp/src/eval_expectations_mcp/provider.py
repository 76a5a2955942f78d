"""The fixture MCP provider: a real MCP server (official SDK) over streamable HTTP on loopback.

Run as ``python -m eval_expectations_mcp.provider``: it binds a free port of 127.0.0.1, prints
``READY <url>`` once it serves, and stays up for a Sweep. It answers each request as an SSE
stream; ``--json-response`` makes it answer with one JSON body instead (both are the
transport). Like a real vendor it knows its accounts by credential: each request carries
``Authorization: Bearer <credential>``, which the fixture registered for an account beforehand.
Like a vendor's sandbox tenants, every Trial gets a sandbox of its own (``PUT
/eval/sandboxes/<id>`` with its ``{credential: accountId}`` pairs): the notes its accounts write
live there, numbered from ``note-1``, so a Trial never sees another's, however many ran before
it on the same process; ``DELETE /eval/sandboxes/<id>`` forgets it when the Trial ends. Like a
vendor it refuses what its own rules forbid (a blank note) with an ``isError`` answer. A
sandbox may also be told how its ``tools/call`` requests are answered (``PUT
/eval/sandboxes/<id>/answers``), as real servers answer: ``status`` in several text parts, every
call with an HTTP error status and a JSON-RPC error (a 403 from a gateway), an event stream
with no length that runs past the runtime's 8 MiB cap, or a ``fault``: a JSON-RPC error, an
HTML page, a JSON body announced past 8 MiB, an event cut off mid-answer, an event stream that
ends without a response. It counts the ``tools/call`` requests it
served per credential, and of those the ones it refused (``isError``, or any answer that is no
result: an HTTP error, an oversized answer, a fault);
the fixture reads its own counters back over plain HTTP (``GET /eval/calls?credential=...``),
which is never a ``tools/call``.
This is the only module of the package that imports the MCP SDK's server side.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import threading
from typing import Any

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import CallToolResult, TextContent
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

server = FastMCP("eval-mcp", log_level="WARNING", stateless_http=False)
_accounts: dict[str, tuple[str, str]] = {}  # credential -> (sandbox, account)
_calls: dict[str, int] = {}
_refused: dict[str, int] = {}  # credential -> the tools/call requests answered with isError
_notes: dict[str, list[dict[str, Any]]] = {}  # sandbox -> its notes, in the order written
_answers: dict[str, dict[str, Any]] = {}  # sandbox -> how its tools/call requests are answered
OVERSIZED = 8 * 1024 * 1024 + 512 * 1024  # bytes of an oversized answer: past an 8 MiB cap
_CHUNK = 64 * 1024


class UnknownCredential(Exception):  # noqa: N818 - what the provider answers
    """The request's credential belongs to no account of this provider."""


class BlankNote(Exception):  # noqa: N818 - what the provider answers
    """A note without text: the workspace refuses to store it."""


def _credential(ctx: Context[Any, Any, Any]) -> str:
    request = ctx.request_context.request
    header = request.headers.get("authorization", "") if request is not None else ""
    return header.removeprefix("Bearer ").strip()


def _account(ctx: Context[Any, Any, Any]) -> tuple[str, str]:
    """Count the ``tools/call`` for its credential; the sandbox and account it belongs to."""
    credential = _credential(ctx)
    _calls[credential] = _calls.get(credential, 0) + 1
    found = _accounts.get(credential)
    if found is None:
        _refuse(ctx)
        raise UnknownCredential("the credential belongs to no connected account")
    return found


def _refuse(ctx: Context[Any, Any, Any]) -> None:
    """Count the ``tools/call`` its answer refuses (``isError``) for its credential."""
    credential = _credential(ctx)
    _refused[credential] = _refused.get(credential, 0) + 1


@server.tool()
def status(ctx: Context[Any, Any, Any], probe: str) -> CallToolResult:
    """Read: the status visible to the account the provider acted for (a connection check).
    Answers as the original's fixture does: the text ``operational`` (or the sandbox's
    ``textParts``, one text content each), and the arguments echoed with ``status`` and
    ``accountId`` as structured content."""
    sandbox, account = _account(ctx)
    parts = _answers.get(sandbox, {}).get("textParts") or ["operational"]
    return CallToolResult(
        content=[TextContent(type="text", text=str(part)) for part in parts],
        structuredContent={"probe": probe, "status": "operational", "accountId": account},
    )


@server.tool()
def create_note(ctx: Context[Any, Any, Any], text: str) -> dict[str, Any]:
    """Mutating: stores a note in the account's workspace (its sandbox), acting for the
    account; ids count the sandbox's own notes. A blank note is refused (``isError``, no
    structured content): the workspace's own rule, which no schema states."""
    sandbox, account = _account(ctx)
    if not text.strip():
        _refuse(ctx)
        raise BlankNote("a note needs text")
    notes = _notes.setdefault(sandbox, [])
    note = {"noteId": f"note-{len(notes) + 1}", "accountId": account, "text": text}
    notes.append(note)
    return note


@server.custom_route("/eval/sandboxes/{sandbox}", methods=["PUT"])  # type: ignore[untyped-decorator]
async def open_sandbox(request: Request) -> JSONResponse:
    """A fresh sandbox (no notes) whose accounts are the ``{credential: accountId}`` pairs;
    one of the same id is replaced, never continued."""
    sandbox = str(request.path_params["sandbox"])
    body = await request.json()
    if not isinstance(body, dict):
        return JSONResponse({"error": "expected {credential: accountId}"}, status_code=400)
    _forget(sandbox)
    _notes[sandbox] = []
    _accounts.update({str(k): (sandbox, str(v)) for k, v in body.items()})
    return JSONResponse({"sandbox": sandbox, "accounts": len(body)})


@server.custom_route("/eval/sandboxes/{sandbox}/answers", methods=["PUT"])  # type: ignore[untyped-decorator]
async def set_answers(request: Request) -> JSONResponse:
    """How the sandbox's ``tools/call`` requests are answered: ``{"textParts": [...]}``,
    ``{"httpStatus": 403}``, ``{"oversized": true}`` (see the module)."""
    body = await request.json()
    if not isinstance(body, dict):
        return JSONResponse({"error": "expected an object"}, status_code=400)
    _answers[str(request.path_params["sandbox"])] = body
    return JSONResponse({})


@server.custom_route("/eval/sandboxes/{sandbox}", methods=["DELETE"])  # type: ignore[untyped-decorator]
async def close_sandbox(request: Request) -> JSONResponse:
    """Forget a sandbox: its notes, its credentials and their counts (read by then)."""
    _forget(str(request.path_params["sandbox"]))
    return JSONResponse({})


def _forget(sandbox: str) -> None:
    _notes.pop(sandbox, None)
    _answers.pop(sandbox, None)
    for credential in [c for c, (owner, _) in _accounts.items() if owner == sandbox]:
        del _accounts[credential]
        _calls.pop(credential, None)
        _refused.pop(credential, None)


@server.custom_route("/eval/calls", methods=["GET"])  # type: ignore[untyped-decorator]
async def calls(request: Request) -> JSONResponse:
    """The ``tools/call`` requests served for the given credentials, and of those the ones
    answered ``isError`` (read-only)."""
    wanted = request.query_params.getlist("credential")
    return JSONResponse(
        {
            "toolsCall": sum(_calls.get(c, 0) for c in wanted),
            "refused": sum(_refused.get(c, 0) for c in wanted),
        }
    )


class Answers:
    """The MCP endpoint, wrapped: a ``tools/call`` of a sandbox told to answer with an HTTP
    error or an oversized stream is answered so here, before the SDK reads it (counted as
    served and refused); every other request reaches the SDK's app unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        answer = _answered(scope, body)
        if answer is not None:
            await answer(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _answered(scope: Scope, body: bytes) -> ASGIApp | None:
    """The answer a ``tools/call`` of a sandbox told otherwise gets, or ``None``."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # not ours to judge: the MCP server answers it
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    headers = dict(scope.get("headers") or ())
    credential = headers.get(b"authorization", b"").decode().removeprefix("Bearer ").strip()
    owner = _accounts.get(credential)
    answers = _answers.get(owner[0], {}) if owner is not None else {}
    status, oversized, fault = (answers.get(k) for k in ("httpStatus", "oversized", "fault"))
    if not status and not oversized and not fault:
        return None
    _calls[credential] = _calls.get(credential, 0) + 1
    _refused[credential] = _refused.get(credential, 0) + 1
    request_id = message.get("id")
    if status:
        error = {"code": -32001, "message": "the gateway refused the request for this account"}
        return JSONResponse(
            {"jsonrpc": "2.0", "id": request_id, "error": error}, status_code=int(status)
        )
    if oversized:
        return StreamingResponse(_oversized(request_id), media_type="text/event-stream")
    return _faulty(str(fault), request_id)


def _faulty(fault: str, request_id: Any) -> ASGIApp:
    """An answer that is no result, as a misbehaving server or a proxy in front of it gives."""
    if fault == "rpc-error":
        error = {"code": -32603, "message": "the workspace index is rebuilding; try again later"}
        return JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": error})
    if fault == "wrong-content-type":
        return Response("<html><body>Down for maintenance</body></html>", media_type="text/html")
    if fault == "announced-oversize":  # a JSON body whose Content-Length says it all
        result = {"content": [{"type": "text", "text": "x" * OVERSIZED}]}
        return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})
    if fault == "cut-off":
        return StreamingResponse(_cut_off(request_id), media_type="text/event-stream")
    return StreamingResponse(_no_response(), media_type="text/event-stream")  # "no-response"


async def _cut_off(request_id: Any) -> Any:
    """Half an event, then the connection is dropped (the chunked body never ends)."""
    yield f'event: message\ndata: {{"jsonrpc": "2.0", "id": {json.dumps(request_id)}, '.encode()
    raise ConnectionAbortedError("the provider drops the connection mid-answer")


async def _no_response() -> Any:
    """An event stream that ends after a keep-alive comment, never answering the request."""
    yield b": keep-alive\n\n"


async def _oversized(request_id: Any) -> Any:
    """One SSE event whose text runs past :data:`OVERSIZED` bytes, sent in chunks (no length)."""
    head = {"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text"}]}}
    start = json.dumps(head)[: -len("}]}}")] + ', "text": "'
    yield f"event: message\ndata: {start}".encode()
    for _ in range(OVERSIZED // _CHUNK):
        yield b"x" * _CHUNK
    yield b'"}]}}\n\n'


@server.custom_route("/eval/process", methods=["GET"])  # type: ignore[untyped-decorator]
async def process(_request: Request) -> JSONResponse:
    """The provider's process id, so a test can kill the real server mid-Turn."""
    return JSONResponse({"pid": os.getpid()})


def _die_with_the_sweep() -> None:
    """Exit when the Sweep that started us is gone, however it went (a SIGKILL included):
    it holds the write end of our stdin, so its death is our end of file. Only when stdin is
    a pipe: started by hand or with /dev/null, the provider runs until it is stopped."""
    if not stat.S_ISFIFO(os.fstat(0).st_mode):
        return

    def watch() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        os._exit(0)

    threading.Thread(target=watch, name="sweep-watch", daemon=True).start()


def main() -> None:
    import uvicorn

    _die_with_the_sweep()

    options = sys.argv[1:]
    if any(option != "--json-response" for option in options):
        sys.exit(f"usage: python -m eval_expectations_mcp.provider [--json-response]: {options}")
    server.settings.json_response = bool(options)

    # IPPROTO_TCP named, so asyncio sets TCP_NODELAY on every accepted connection (it skips
    # proto 0): without it, Nagle holds each SSE event until the client's delayed ACK (~40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        Answers(server.streamable_http_app()), log_level="warning", lifespan="on"
    )
    uvicorn_server = uvicorn.Server(config)

    original = uvicorn_server.startup

    async def startup(sockets: Any = None) -> None:
        await original(sockets=sockets)
        sys.stdout.write(f"READY http://127.0.0.1:{port}/mcp\n")
        sys.stdout.flush()

    uvicorn_server.startup = startup  # type: ignore[method-assign]
    uvicorn_server.run(sockets=[sock])


if __name__ == "__main__":
    main()
