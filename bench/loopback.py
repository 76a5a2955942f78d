"""Loopback vendors: JSON over HTTP on 127.0.0.1 only, no network. :class:`SlowVendor` answers
the OpenAI wire after a fixed delay, for the concurrency benchmarks and tests (``--jobs``,
executors); the root tests' scripted vendors stand on the same :class:`Loopback`, and
:func:`loopback_certificate` is the one certificate the HTTPS tests serve (the runtime's MCP
client, the bindings' wire). Standard library only: the runtime's tests may import it."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class Loopback:
    """An HTTP server on 127.0.0.1 serving ``handler`` from a thread of its own; ``url`` is its
    base, ending in ``/v1``."""

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        server: type[ThreadingHTTPServer] = ThreadingHTTPServer,
    ) -> None:
        self.server = server(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class JsonHandler(BaseHTTPRequestHandler):
    """A vendor's side of one connection: it logs nothing and answers in JSON, a POST's JSON
    body as :meth:`reply` says (unless a vendor's own ``do_POST`` answers otherwise)."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.send_json(*self.reply(body))

    def reply(self, body: Any) -> tuple[int, Any]:
        """The status and the JSON that answer ``body``, POSTed to ``self.path``."""
        raise NotImplementedError

    def send_json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a vendor's backlog, not socketserver's 5: no refused connects


class SlowVendor(Loopback):
    """An OpenAI-wire server on 127.0.0.1 that answers text after ``delay`` seconds, and
    answers 429 while more than ``limit`` requests are in flight."""

    def __init__(self, delay: float, limit: int | None = None) -> None:
        self.in_flight = 0
        self.most = 0
        self.rate_limited = 0
        lock = threading.Lock()
        vendor = self

        class Handler(JsonHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a vendor's API is
            disable_nagle_algorithm = True  # else each reply's body waits on a delayed ACK

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                with lock:
                    vendor.in_flight += 1
                    vendor.most = max(vendor.most, vendor.in_flight)
                    refused = limit is not None and vendor.in_flight > limit
                    if refused:
                        vendor.rate_limited += 1
                try:
                    if refused:
                        self.send_json(429, {"error": "slow down"}, {"Retry-After": "0"})
                        return
                    time.sleep(delay)
                    message = {"role": "assistant", "content": "Your tulip bulbs ship soon."}
                    self.send_json(
                        200,
                        {
                            "id": "x",
                            "model": body["model"],
                            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                            "usage": {"prompt_tokens": 1000, "completion_tokens": 100},
                        },
                    )
                finally:
                    with lock:
                        vendor.in_flight -= 1

        super().__init__(Handler, _Server)


def loopback_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, valid for a day (PEM files)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "loopback")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(private, hashes.SHA256())
    )
    cert, key = directory / "cert.pem", directory / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, key
