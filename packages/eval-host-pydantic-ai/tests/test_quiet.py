"""The MCP SDK's own failures under pydantic-ai's MCP client never reach stderr (issue 45,
class 5): a misbehaving streamable-HTTP server on 127.0.0.1 (a malformed event, an answer that
is not UTF-8, an answer cut mid-event, a flood of notifications it cannot validate) made the
SDK print tracebacks and install a root stderr handler; with the Host's :func:`quiet` the
records are counted and stderr stays empty. The client runs in a child: stderr is the real one."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

EVENTS: dict[str, Callable[[dict[str, Any]], list[bytes]]] = {
    "malformed": lambda m: [b"data: {not json}\n\n"],
    "not-utf8": lambda m: [b"data: \xff\xfe\n\n"],
    "cut": lambda m: [b'data: {"jsonrpc": "2.0", "id": ' + str(m["id"]).encode()],
    "flood": lambda m: [b'data: {"jsonrpc": "2.0", "method": "notifications/progress"}\n\n'] * 500,
}


class Misbehaving(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args: Any) -> None:
        pass

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "misbehaving", "version": "0"},
            }
            body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Mcp-Session-Id", "s1")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        fault = self.path.rsplit("/", 1)[-1]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in EVENTS[fault](message):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
        if fault == "cut":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self) -> None:
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self) -> None:
        self.do_GET()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Misbehaving)
    httpd.daemon_threads = True
    httpd.handle_error = lambda *_: None  # type: ignore[method-assign]
    threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/mcp"
    httpd.shutdown()
    httpd.server_close()


CHILD = """
import asyncio, sys
from eval_host_pydantic_ai.quiet import dropped, quiet
quiet()
from pydantic_ai.mcp import MCPToolset

async def one(url):
    async with MCPToolset(url) as toolset:
        return await asyncio.wait_for(toolset.client.list_tools(), 1.5)

for url in sys.argv[1:]:
    try:
        print("answered", asyncio.run(one(url)))
    except BaseException as error:
        print("failed", type(error).__name__)
print(sum(dropped().values()))
"""


def test_the_sdk_s_own_failures_never_reach_stderr(server: str) -> None:
    urls = [f"{server}/{fault}" for fault in EVENTS]
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *urls],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == "", out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(EVENTS) + 1 and all(line.startswith("failed") for line in lines[:-1])
    assert int(lines[-1]) >= 3, lines  # the malformed, non-UTF-8 and flooding answers' records
