"""What a hostile model endpoint can cost the binding: seconds and bytes held, before and after.

    uv run python bench/hostile_wire.py

Two loopback servers misbehave: one sends a gzip bomb (a small body that inflates to
``BOMB_MIB`` MiB), one trickles a 2 KB reply a byte every 20 ms, inside any read timeout.
"before" is what a plain ``httpx`` post and ``.json()`` does (the binding until issue 20);
"after" is ``post_json`` (httpx under the binding's total deadline and decompressed-size cap).
Memory is the Python heap peak during the call (``tracemalloc``), where the reply is held.
"""

from __future__ import annotations

import gzip
import threading
import time
import tracemalloc
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

from eval_bindings.wire.transport import Connections, VendorError, post_json

BOMB_MIB = 256
TIMEOUT = 2.0


def serve(body: bytes, headers: dict[str, str], trickle: float = 0.0) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            self.send_response(200)
            for key, value in {**headers, "Content-Length": str(len(body))}.items():
                self.send_header(key, value)
            self.end_headers()
            try:
                if trickle:
                    for index in range(len(body)):
                        self.wfile.write(body[index : index + 1])
                        self.wfile.flush()
                        time.sleep(trickle)
                else:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def measure(label: str, call: Callable[[], object]) -> None:
    tracemalloc.start()
    started = time.perf_counter()
    try:
        call()
        outcome = "read whole"
    except VendorError as fault:
        outcome = fault.reason
    except Exception as exc:
        outcome = type(exc).__name__
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{label:<34} {seconds:>8.2f} s {peak / 2**20:>9.1f} MiB  {outcome}")


def main() -> None:
    bomb = gzip.compress(b"[" + b" " * (BOMB_MIB << 20) + b"]", compresslevel=9)
    slow = b'{"padding": "' + b"x" * 2000 + b'"}'
    bomber = serve(bomb, {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    trickler = serve(slow, {"Content-Type": "application/json"}, trickle=0.02)
    bomb_url = f"http://127.0.0.1:{bomber.server_address[1]}/v1"
    slow_url = f"http://127.0.0.1:{trickler.server_address[1]}/v1"
    print(f"gzip bomb: {len(bomb) / 1024:.0f} KiB on the wire, {BOMB_MIB} MiB inflated")
    print(f"trickle: {len(slow)} bytes at one per 20 ms; timeout {TIMEOUT:g} s")
    print(f"{'':<34} {'wall':>10} {'heap peak':>13}  outcome")
    with httpx.Client() as client, Connections() as ours:
        measure(
            "gzip bomb, before",
            lambda: client.post(bomb_url, json={}, timeout=TIMEOUT).json(),
        )
        measure(
            "gzip bomb, after (cap 8 MiB)",
            lambda: post_json(ours, bomb_url, {}, {}, TIMEOUT),
        )
        measure(
            "trickle, before",
            lambda: client.post(slow_url, json={}, timeout=TIMEOUT).json(),
        )
        measure("trickle, after", lambda: post_json(ours, slow_url, {}, {}, TIMEOUT))
    bomber.shutdown()
    trickler.shutdown()


if __name__ == "__main__":
    main()
