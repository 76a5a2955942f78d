"""Every vendor fault is a ``model_*`` reason and an errored Trial, never a failed one.

Each fault is served by a real loopback server in both wire formats. Transient faults (rate
limit, 5xx, timeout, refused connection) are retried up to 3 attempts, each billed as a call
and reported as a retry; the rest are not retried. The credential never appears in what the
fault says.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from eval_bindings.endpoint import EndpointBinding
from eval_core._case.kinds import Expectation
from eval_core._plugins.host import ModelCallRequest, ModelError
from eval_core._plugins.plugins import load_plugins
from eval_core._running.trial import TrialResult, run_trial

WIRES = ["openai", "anthropic"]


def good(wire: str, text: str = "ok", tokens: tuple[int, int] = (10, 3)) -> dict[str, Any]:
    if wire == "openai":
        return {
            "model": "test-model-2025-01-01",
            "choices": [
                {"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
        }
    return {
        "model": "test-model-2025-01-01",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": tokens[0], "output_tokens": tokens[1]},
    }


def no_usage(wire: str) -> dict[str, Any]:
    body = good(wire)
    del body["usage"]
    return body


def serve_on(port: int, body: dict[str, Any]) -> ThreadingHTTPServer:
    """A loopback server on ``port`` answering every POST with ``body`` (a restarted vendor)."""
    data = json.dumps(body).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    ).start()
    return server


REQUEST = ModelCallRequest(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])


def binding(kit: Any, wire: str, url: str, **pin: Any) -> EndpointBinding:
    return EndpointBinding(kit.pin(wire, url, **pin), kit.FAKE_KEY, base_delay=0.001)


@functools.cache
def kinds() -> Any:
    """The installed kinds, loaded once: a timed Trial below must not time the plug-ins' load."""
    return load_plugins().kinds


def output_contains() -> list[Expectation]:
    return [kinds()["output_contains"].struct(text="ok")]  # type: ignore[call-arg]


def assert_errored(
    kit: Any, host: Any, b: EndpointBinding, reason: str, calls: int, retries: int
) -> TrialResult:
    """Through the real run_trial: errored with the reason, never failed; attempts on the record."""
    result = run_trial(kit.make_case(expect=output_contains()), 1, host, b, kinds())
    assert result.outcome == "errored", result
    assert result.error is not None and result.error.startswith(reason), result.error
    assert (result.model_calls, result.retries) == (calls, retries)
    assert kit.FAKE_KEY not in (result.error or "")
    return result


@pytest.mark.parametrize("wire", WIRES)
def test_rate_limit_honours_retry_after_then_succeeds(wire: str, vendor: Any, kit: Any) -> None:
    server = vendor(
        kit.Reply(status=429, body={"error": "slow down"}, headers={"Retry-After": "0.3"}),
        kit.Reply(body=good(wire)),
    )
    session = binding(kit, wire, server.url).session(kit.make_case())
    started = time.monotonic()
    reply = session.complete(REQUEST)
    assert time.monotonic() - started >= 0.3  # the vendor's hint, not the 1 ms base delay
    assert reply.text == "ok"
    assert (session.calls, session.retries) == (2, 1)
    assert (session.usage.input_tokens, session.usage.output_tokens) == (10, 3)


def test_retry_after_is_capped(vendor: Any, kit: Any) -> None:
    server = vendor(
        kit.Reply(status=429, body={}, headers={"Retry-After": "3600"}),
        kit.Reply(body=good("openai")),
    )
    waits: list[float] = []
    b = EndpointBinding(
        kit.pin("openai", server.url), kit.FAKE_KEY, max_wait=0.05, sleep=waits.append
    )
    b.session(kit.make_case()).complete(REQUEST)
    assert waits == [0.05]


@pytest.mark.parametrize("wire", WIRES)
def test_rate_limited_three_times_errors_the_trial(
    wire: str, vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(kit.Reply(status=429, body={"error": "rate"}, headers={"Retry-After": "0"}))
    assert_errored(kit, loop_host, binding(kit, wire, server.url), "model_rate_limited", 3, 2)
    assert server.served == 3


@pytest.mark.parametrize("wire", WIRES)
def test_5xx_is_unavailable_and_retried(wire: str, vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(status=500, body={"error": "boom"}))
    assert_errored(
        kit, loop_host, binding(kit, wire, server.url), "model_provider_unavailable", 3, 2
    )
    recovering = vendor(kit.Reply(status=503, body={}), kit.Reply(body=good(wire)))
    session = binding(kit, wire, recovering.url).session(kit.make_case())
    assert session.complete(REQUEST).text == "ok"
    assert (session.calls, session.retries) == (2, 1)


@pytest.mark.parametrize("wire", WIRES)
def test_timeout_is_retried_then_errors(wire: str, vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=good(wire), delay=1.0))
    b = binding(kit, wire, server.url, timeout_s=0.2)
    assert_errored(kit, loop_host, b, "model_timeout", 3, 2)


def test_a_trial_bound_cuts_the_retries_of_a_server_that_never_answers_in_time(
    vendor: Any, kit: Any, loop_host: Any
) -> None:
    """One wall clock across a Trial's retries: 3 timeouts of 0.5 s would take 1.5 s; with a
    0.7 s bound the second attempt gets what is left and the third is never sent."""
    server = vendor(kit.Reply(body=good("openai"), delay=2.0))
    b = binding(kit, "openai", server.url, timeout_s=0.5, trial_timeout_s=0.7)
    started = time.monotonic()
    result = assert_errored(kit, loop_host, b, "model_timeout", 2, 1)
    assert time.monotonic() - started < 1.2
    assert "the Trial's bound of 0.7s, trial_timeout_s, is spent" in (result.error or "")


def test_a_trial_bound_is_not_waited_past_for_a_retry_after(
    vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(
        kit.Reply(status=429, body={"error": "slow down"}, headers={"Retry-After": "5"})
    )
    waits: list[float] = []
    b = EndpointBinding(
        kit.pin("openai", server.url, trial_timeout_s=1.0),
        kit.FAKE_KEY,
        max_wait=30.0,
        sleep=waits.append,
    )
    assert_errored(kit, loop_host, b, "model_rate_limited", 1, 0)
    assert waits == []  # the 5 s wait would outlast the bound: not waited


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    "body",
    [
        b"{not json at all",
        b'{"choices": [{"message": {"content": "trunc',
        b"[1, 2, 3]",
        b'{"id": "x"}',
    ],
    ids=["malformed", "truncated-json", "wrong-shape-list", "wrong-shape-object"],
)
def test_bad_bodies_are_malformed_and_not_retried(
    wire: str, body: bytes, vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(kit.Reply(body=body))
    assert_errored(kit, loop_host, binding(kit, wire, server.url), "model_malformed_response", 1, 0)


@pytest.mark.parametrize("wire", WIRES)
def test_a_body_cut_short_is_malformed(wire: str, vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=good(wire), truncate=True))  # Content-Length promises more
    assert_errored(kit, loop_host, binding(kit, wire, server.url), "model_malformed_response", 1, 0)


@pytest.mark.parametrize("wire", WIRES)
def test_refused_connection_is_unreachable_after_its_retries(
    wire: str, kit: Any, loop_host: Any
) -> None:
    """A refused connection never reached the server: it is retried like a 5xx (a server
    restarting mid-Sweep), 3 attempts, each billed as a call, then the Trial errs."""
    url = f"http://127.0.0.1:{kit.closed_port()}/v1"
    result = assert_errored(kit, loop_host, binding(kit, wire, url), "model_unreachable", 3, 2)
    assert "cannot connect to" in (result.error or "")


@pytest.mark.parametrize("wire", WIRES)
def test_a_server_back_before_the_retry_answers_the_trial(
    wire: str, kit: Any, loop_host: Any
) -> None:
    """The server is down at the first attempt and listening again (on the same port) when
    the retry's backoff ends: the Trial passes, its refused attempt on the record."""
    port = kit.closed_port()
    started: list[ThreadingHTTPServer] = []

    def restart(_seconds: float) -> None:  # the backoff: the server comes back meanwhile
        if not started:
            started.append(serve_on(port, good(wire)))

    b = EndpointBinding(
        kit.pin(wire, f"http://127.0.0.1:{port}/v1"), kit.FAKE_KEY, base_delay=0.001, sleep=restart
    )
    try:
        result = run_trial(
            kit.make_case(expect=output_contains()), 1, loop_host, b, load_plugins().kinds
        )
    finally:
        for server in started:
            server.shutdown()
            server.server_close()
    assert result.outcome == "passed", result
    assert (result.model_calls, result.retries) == (2, 1)


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/v1", "http:///v1", "http://127.0.0.1:99999/v1"])
def test_a_url_that_can_never_connect_is_not_retried(url: str, kit: Any, loop_host: Any) -> None:
    assert_errored(kit, loop_host, binding(kit, "openai", url), "model_unreachable", 1, 0)


def test_the_trial_bound_holds_across_unreachable_retries(kit: Any, loop_host: Any) -> None:
    """With ``trial_timeout_s`` the retries of a refused connection stop when the backoff would
    outlast the bound (3 s, then 6 s against 5 s): the Trial errs within it. The waits are
    recorded, not slept; the bound is wide so that a loaded machine's slow refused connect
    (the time before the first backoff counts against it) cannot skip the first retry."""
    url = f"http://127.0.0.1:{kit.closed_port()}/v1"
    waits: list[float] = []
    pin = kit.pin("openai", url, trial_timeout_s=5.0)
    b = EndpointBinding(pin, kit.FAKE_KEY, base_delay=3.0, sleep=waits.append)
    result = assert_errored(kit, loop_host, b, "model_unreachable", 2, 1)
    assert waits == [3.0]  # the second backoff, 6 s, would outlast the bound: not waited
    assert "Connection refused" in (result.error or "")


@pytest.mark.parametrize("wire", WIRES)
def test_missing_usage_is_its_own_reason(wire: str, vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=no_usage(wire)))
    assert_errored(kit, loop_host, binding(kit, wire, server.url), "model_usage_missing", 1, 0)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_is_never_retried_and_never_echoes_the_key(
    wire: str, status: int, vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(kit.Reply(status=status, body={"error": f"bad key {kit.FAKE_KEY}"}))
    assert_errored(kit, loop_host, binding(kit, wire, server.url), "model_auth_failed", 1, 0)
    session = binding(kit, wire, server.url).session(kit.make_case())
    with pytest.raises(ModelError) as caught:
        session.complete(REQUEST)
    assert "credential redacted" in str(caught.value)
    assert kit.FAKE_KEY not in str(caught.value)


def test_a_failed_attempt_that_reports_usage_is_billed(vendor: Any, kit: Any) -> None:
    body = {"usage": {"prompt_tokens": 40, "completion_tokens": 9}, "choices": "not a list"}
    server = vendor(kit.Reply(body=body))
    session = binding(kit, "openai", server.url).session(kit.make_case())
    with pytest.raises(ModelError, match="model_malformed_response"):
        session.complete(REQUEST)
    assert (session.calls, session.usage.input_tokens, session.usage.output_tokens) == (1, 40, 9)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    "error",
    [
        {"code": 500, "message": "image input is not supported", "type": "server_error"},
        {"message": "messages[1].content: null is not allowed", "type": "invalid_request_error"},
    ],
)
def test_a_5xx_naming_the_request_as_its_fault_is_rejected_not_retried(
    wire: str, error: dict[str, Any], vendor: Any, kit: Any, loop_host: Any
) -> None:
    """Sent again it would be refused again: not ``model_provider_unavailable``, one attempt."""
    server = vendor(kit.Reply(status=500, body={"error": error}))
    result = assert_errored(
        kit, loop_host, binding(kit, wire, server.url), "model_request_rejected", 1, 0
    )
    assert "answered 500, naming the request" in (result.error or "")
    assert error["message"] in (result.error or "")


@pytest.mark.parametrize("body", [{"error": "overloaded"}, {"error": {"message": "try later"}}])
def test_a_5xx_that_does_not_blame_the_request_is_still_retried(
    body: dict[str, Any], vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(kit.Reply(status=503, body=body))
    assert_errored(
        kit, loop_host, binding(kit, "openai", server.url), "model_provider_unavailable", 3, 2
    )
