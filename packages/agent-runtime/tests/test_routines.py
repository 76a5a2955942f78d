"""Routine definitions: the static lint finds every problem with its path; templates resolve."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.routines.definitions import RoutineError, lint, parse, resolve
from agent_runtime.routines.tool_providers import MAX_REPLY_BYTES, classify

PUSH = {"key": "push", "type": "tool", "tool": "invoice_push",
        "arguments": {"id": {"$from": "inputs.invoiceId"}}}  # fmt: skip
KEEP = {"key": "keep", "type": "capture", "output": {"receipt": {"$from": "states.push.output.r"}}}
SOUND = {"inputs": {"invoiceId": {"type": "string"}}, "states": [PUSH, KEEP]}


def test_a_sound_definition_parses_and_its_templates_resolve() -> None:
    routine = parse(SOUND)
    assert routine.states[0].tool == "invoice_push"
    scope = {"inputs": {"invoiceId": "INV-1"}, "states": {"push": {"output": {"r": "r-9"}}}}
    assert resolve(routine.states[0].arguments, scope) == {"id": "INV-1"}
    assert resolve(KEEP["output"], scope) == {"receipt": "r-9"}
    assert resolve({"$from": "inputs.missing.deep"}, scope) is None


@pytest.mark.parametrize(
    ("definition", "finding"),
    [
        ([], "$: a Routine definition is a mapping"),
        ({"states": []}, "$.states: must list at least one State"),
        ({**SOUND, "steps": []}, "$.steps: unknown field"),
        ({**SOUND, "states": [KEEP]}, "$.states: a Routine has exactly one tool State, not 0"),
        ({**SOUND, "states": [PUSH, PUSH]}, "$.states[1].key: State key 'push' is used twice"),
        ({**SOUND, "states": [PUSH, {**KEEP, "type": "wait"}]}, "'wait' is not a State type"),
        ({**SOUND, "inputs": {}}, "$.states[0].arguments.id: reads the undeclared input"),
        ({**SOUND, "states": [KEEP, PUSH]}, "reads State 'push', which is not an earlier"),
        ({**SOUND, "states": [PUSH, {"key": "keep", "type": "capture"}]}, "says what it keeps"),
    ],
)
def test_the_lint_names_each_problem(definition: Any, finding: str) -> None:
    found = [str(f) for f in lint(definition)]
    assert any(finding in f for f in found), found
    with pytest.raises(RoutineError):
        parse(definition)


def test_a_provider_reply_is_classified_by_its_status() -> None:
    assert classify(200, None, b'  {"r": 1}').output == {"r": 1}
    retry = classify(429, "3", b'{"error": {"code": "rate_limited"}}')
    assert (retry.status, retry.retry_after_ms, retry.code) == ("retry", 3000, "rate_limited")
    assert classify(503, None, b'{"error": {"retryAfterMs": 250}}').retry_after_ms == 250
    assert classify(400, None, b'{"error": {"code": "bad_amount"}}').code == "bad_amount"
    malformed = classify(200, None, b"{half")  # a 2xx whose body is not JSON is no effect
    assert (malformed.status, malformed.code) == ("failure", "malformed_reply (HTTP 200)")


def test_a_reply_of_exactly_the_limit_is_read() -> None:
    """The limit is the largest reply taken (``read_whole`` reads one byte more to tell a larger
    one): a reply of exactly MAX_REPLY_BYTES is an effect, one byte more is refused."""
    body = b'{"r": 1}'
    exact = body + b" " * (MAX_REPLY_BYTES - len(body))
    assert classify(200, None, exact).output == {"r": 1}
    over = classify(200, None, exact + b" ")
    assert (over.status, over.code) == ("failure", "reply_too_large")


def test_only_a_2xx_reply_is_an_effect() -> None:
    """A redirect (a provider that moved) is not an answer: http.client follows none, so the
    State fails naming the status rather than keeping an empty output as the effect."""
    assert classify(299, None, b'{"r": 1}').status == "success"
    for status in (300, 301, 307):
        reply = classify(status, None, b"")
        assert (reply.status, reply.code) == ("failure", f"http_{status}")


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        (b"a provider that speaks no HTTP\r\n\r\n", "malformed_reply (BadStatusLine)"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "malformed_reply (IncompleteRead)",
        ),
    ],
    ids=["not-http", "chunked-body-cut-short"],
)
def test_an_answer_that_is_not_http_is_a_failure_not_a_crash(answer: bytes, code: str) -> None:
    """A provider behind a broken proxy, or one that dies mid-body, fails the call with a
    reason; http.client's own errors (no OSError) never escape into the worker."""
    import socket
    import threading

    from agent_runtime.routines.tool_providers import HttpToolProvider

    with socket.create_server(("127.0.0.1", 0)) as server:

        def serve() -> None:
            client, _ = server.accept()
            with client:
                client.recv(65536)
                client.sendall(answer)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        port = server.getsockname()[1]
        reply = HttpToolProvider(f"http://127.0.0.1:{port}/", timeout=5.0).call("t", {}, "k-1")
        thread.join(5.0)
    assert (reply.status, reply.code) == ("failure", code)
