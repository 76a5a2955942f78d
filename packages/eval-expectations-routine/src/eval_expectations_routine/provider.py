"""The fixture provider: a real HTTP server on loopback that plays a Routine Tool's provider.

Each Trial opens a scenario (the Case's ``providerSteps``) at a URL of its own; every POST to
it is answered by the next step (the last repeats once they run out): ``success`` applies the
effect and answers ``200`` with the output (after ``paddingBytes`` bytes of leading
whitespace), ``retry`` answers ``429`` (or ``503``) with ``Retry-After`` and/or ``{"error":
{"code", "retryAfterMs"}}``, ``refuse`` answers a 4xx with ``{"error": {"code"}}`` (or with
its ``body``, as given). Like a real provider it keeps its own log: requests served, effects
applied, and each request as it arrived (the Tool, its arguments, its idempotency key, what it
answered, and when, on the Trial's clock when the scenario has one). It does not deduplicate
by key: that the effect is applied once is the runtime's job, and what this provider counts.
"""

from __future__ import annotations

import json
import math
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True, slots=True)
class Received:
    """One request as the provider received it; ``applied`` when it applied the effect, else
    it asked to be retried after ``retry_after_ms``; ``at`` when it arrived (the scenario's
    clock, ``None`` without one)."""

    tool: str
    arguments: Any
    key: str
    applied: bool
    retry_after_ms: int | None = None
    at: float | None = None


@dataclass(slots=True)
class Scenario:
    """One Trial's provider: its steps and what it served."""

    id: str
    url: str
    steps: Sequence[dict[str, Any]]
    requests: int = 0
    effects: int = 0
    keys: list[str] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    clock: Callable[[], float] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, key: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
        try:
            sent = json.loads(body)
        except ValueError:
            sent = None
        sent = sent if isinstance(sent, dict) else {}
        at = self.clock() if self.clock is not None else None
        with self.lock:
            step = self.steps[min(self.requests, len(self.steps) - 1)]
            self.requests += 1
            self.keys.append(key)
            tool = str(sent.get("tool") or "")
            if step["kind"] == "refuse":
                self.received.append(Received(tool, sent.get("arguments"), key, False, None, at))
                said = step.get("body")
                error_body = {"error": {"code": step.get("code")}}
                body = said.encode() if said is not None else json.dumps(error_body).encode()
                return int(step["status"]), {}, body
            retry = step["kind"] == "retry"
            after = int(step["retryAfterMs"]) if retry else None
            self.received.append(Received(tool, sent.get("arguments"), key, not retry, after, at))
            if after is not None:
                said = step.get("retryAfterIn") or "both"
                error: dict[str, Any] = {"code": step.get("code") or "rate_limited"}
                if said in ("body", "both"):
                    error["retryAfterMs"] = after
                headers = {}
                if said in ("header", "both"):
                    headers["Retry-After"] = str(math.ceil(after / 1000))
                status = int(step.get("status") or 429)
                return status, headers, json.dumps({"error": error}).encode()
            self.effects += 1
            padding = b" " * int(step.get("paddingBytes") or 0)
            return 200, {}, padding + json.dumps(step["output"]).encode()


class FixtureProvider:
    """The loopback server, shared by a Sweep's Trials; a scenario per Trial."""

    def __init__(self) -> None:
        self.scenarios: dict[str, Scenario] = {}
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                scenario = provider.scenarios.get(self.path.rsplit("/", 1)[-1])
                headers: dict[str, str]
                if scenario is None:
                    status, headers, body = 404, {}, b'{"error": {"code": "no_such_tool"}}'
                else:
                    key = self.headers.get("Idempotency-Key") or ""
                    status, headers, body = scenario.answer(key, body)
                self.send_response(status)
                for name, value in {**headers, "Content-Type": "application/json"}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/tools"
        # shutdown() waits out one poll interval: the default 0.5 s would end every Sweep late
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def open(
        self, steps: Sequence[dict[str, Any]], clock: Callable[[], float] | None = None
    ) -> Scenario:
        """A scenario of its own; ``clock`` stamps each request as it arrives."""
        key = uuid.uuid4().hex
        scenario = Scenario(key, f"{self.base}/{key}", steps, clock=clock)
        self.scenarios[key] = scenario
        return scenario

    def forget(self, scenario: Scenario) -> None:
        self.scenarios.pop(scenario.id, None)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def shared_provider() -> Iterator[FixtureProvider]:
    """The provider as a Sweep-scoped resource: started on first use, stopped at the end."""
    provider = FixtureProvider()
    try:
        yield provider
    finally:
        provider.close()
