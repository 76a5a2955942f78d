"""An MCP session over stdio with the team's Tool server forked by the fork-server: what the MCP
SDK's ``stdio_client`` does for a started server (newline-delimited JSON-RPC on its stdin and
stdout, stderr kept aside), for a Python Tool server forked per Trial from a zygote instead
(``python -m desk.orders_server``: its imports made once per Sweep, its state fresh in every
Trial). At the session's end its stdin closes, it gets a moment to exit, and everything it
started is ended as an agent's processes are (:mod:`.process`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

from eval_host_process import process
from eval_host_process.fork_server import Forked, ForkServer

EXIT_SECONDS = 2.0  # after its stdin closes, as the SDK's stdio_client waits
CHUNK = 65536


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _end(child: Forked, marker: str, born: int) -> None:
    """Close its stdin, give it a moment to exit, then end whatever of it is left."""
    with contextlib.suppress(OSError, ValueError):
        child.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=EXIT_SECONDS)
    try:
        process._end_all(child, marker, born, child.reaper)
    finally:
        child.hang_up()


@contextlib.asynccontextmanager
async def forked_stdio(
    server: ForkServer, argv: Sequence[str], cwd: Path, env: Mapping[str, str]
) -> AsyncIterator[tuple[Any, Any]]:
    """The read and write streams of a session with a freshly forked Tool server."""
    marker = secrets.token_hex(8)
    child = server.open(argv, cwd=cwd, env={**env, process.MARK: marker})
    born = process._born(child.pid)
    incoming: tuple[
        MemoryObjectSendStream[SessionMessage | Exception],
        MemoryObjectReceiveStream[SessionMessage | Exception],
    ] = anyio.create_memory_object_stream(0)
    outgoing: tuple[
        MemoryObjectSendStream[SessionMessage], MemoryObjectReceiveStream[SessionMessage]
    ] = anyio.create_memory_object_stream(0)
    read_writer, read_stream = incoming
    write_stream, write_reader = outgoing

    async def read(fd: int) -> bytes:
        return await anyio.to_thread.run_sync(os.read, fd, CHUNK, abandon_on_cancel=True)

    async def reader() -> None:
        rest = b""
        async with read_writer:
            while data := await read(child.stdout.fileno()):
                *lines, rest = (rest + data).split(b"\n")
                for line in lines:
                    if not line.strip():
                        continue
                    try:
                        message = types.JSONRPCMessage.model_validate_json(line)
                    except Exception as exc:  # as stdio_client: the session sees the error
                        await read_writer.send(exc)
                        continue
                    await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        async with write_reader:
            async for sent in write_reader:
                data = sent.message.model_dump_json(by_alias=True, exclude_none=True) + "\n"
                await anyio.to_thread.run_sync(_write_all, child.stdin.fileno(), data.encode())

    async def drain() -> None:  # its stderr, never read by anyone: kept from filling
        while await read(child.stderr.fileno()):
            pass

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(writer)
            group.start_soon(drain)
            try:
                yield read_stream, write_stream
            finally:
                group.cancel_scope.cancel()
    finally:
        await anyio.to_thread.run_sync(_end, child, marker, born)
