"""The fixture provider over its real transport (streamable HTTP on loopback): it knows accounts
by credential, counts the ``tools/call`` requests it served per credential, reading the count
is not itself a ``tools/call``, and each sandbox (a Trial's) keeps its own state."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from eval_expectations_mcp.fixture import McpAnswers
from eval_expectations_mcp.setup import Provider

Call = Callable[[str, str, str, dict[str, Any]], tuple[bool, Any]]


@pytest.fixture
def call(call_tool: Callable[..., Any]) -> Call:
    """``call(url, credential, name, arguments)``: whether the answer is an error, and its
    structured content."""

    def answered(url: str, credential: str, name: str, arguments: dict[str, Any]) -> Any:
        result = call_tool(url, credential, name, arguments)
        return bool(result.isError), result.structuredContent

    return answered


def test_the_provider_acts_for_the_account_of_the_credential(
    provider: Provider, call: Call
) -> None:
    provider.open_sandbox("s-a", {"cred-a": "acct-a", "cred-b": "acct-b"})
    is_error, structured = call(provider.url, "cred-a", "status", {"probe": "x"})
    assert not is_error and structured["accountId"] == "acct-a"
    is_error, structured = call(provider.url, "cred-b", "create_note", {"text": "hi"})
    assert not is_error and structured["accountId"] == "acct-b"


def test_the_count_is_per_credential_and_reading_it_is_no_call(
    provider: Provider, call: Call
) -> None:
    provider.open_sandbox("s-c", {"cred-c": "acct-c"})
    call(provider.url, "cred-c", "status", {"probe": "p"})
    call(provider.url, "cred-c", "status", {"probe": "p"})
    assert provider.calls(["cred-c"]) == 2
    assert provider.calls(["cred-c"]) == 2  # reading is no call
    assert provider.calls(["cred-unused"]) == 0


def test_an_unknown_credential_is_refused_but_counted(provider: Provider, call: Call) -> None:
    is_error, _ = call(provider.url, "cred-nobody", "status", {"probe": "p"})
    assert is_error
    assert provider.calls(["cred-nobody"]) == 1


def test_a_dead_provider_is_not_observed_and_restarts(provider: Provider, call: Call) -> None:
    assert provider.process is not None
    provider.process.kill()
    provider.process.wait()
    assert provider.calls(["cred-a"]) is None  # not observed is never zero
    provider.ensure()
    provider.open_sandbox("s-d", {"cred-d": "acct-d"})
    assert call(provider.url, "cred-d", "status", {"probe": "p"})[1]["accountId"] == "acct-d"


def note_ids(call: Call, url: str, credential: str, count: int) -> list[str]:
    return [call(url, credential, "create_note", {"text": "n"})[1]["noteId"] for _ in range(count)]


def test_every_sandbox_starts_empty_on_the_one_process(provider: Provider, call: Call) -> None:
    """A Trial's notes never number on from an earlier Trial's: the process is shared by a
    Sweep, its state is not (``--repeat`` Trials must not see each other)."""
    provider.open_sandbox("s-first", {"cred-first": "acct-n"})
    assert note_ids(call, provider.url, "cred-first", 2) == ["note-1", "note-2"]
    provider.open_sandbox("s-second", {"cred-second": "acct-n"})
    assert note_ids(call, provider.url, "cred-second", 1) == ["note-1"]
    assert note_ids(call, provider.url, "cred-first", 1) == [
        "note-3"
    ]  # still its own, open at once
    provider.open_sandbox("s-first", {"cred-again": "acct-n"})  # the same id opens afresh
    assert note_ids(call, provider.url, "cred-again", 1) == ["note-1"]
    is_error, _ = call(provider.url, "cred-first", "status", {"probe": "p"})
    assert is_error  # replaced: its old credentials belong to no account now


def test_a_closed_sandbox_forgets_its_accounts_and_counts(provider: Provider, call: Call) -> None:
    provider.open_sandbox("s-closed", {"cred-closed": "acct-x"})
    call(provider.url, "cred-closed", "status", {"probe": "p"})
    assert provider.calls(["cred-closed"]) == 1
    provider.close_sandbox("s-closed")
    assert provider.calls(["cred-closed"]) == 0
    is_error, _ = call(provider.url, "cred-closed", "status", {"probe": "p"})
    assert is_error
    provider.close_sandbox("s-never-opened")  # nothing to forget is no error


def test_a_blank_note_is_refused_counted_and_counted_as_refused(
    provider: Provider, call: Call
) -> None:
    """The workspace's own rule, which no schema states: an ``isError`` answer with no
    structured content, one served call and one refusal for the credential."""
    provider.open_sandbox("s-blank", {"cred-blank": "acct-b"})
    is_error, structured = call(provider.url, "cred-blank", "create_note", {"text": "  "})
    assert is_error and structured is None
    assert provider.calls(["cred-blank"]) == 1
    assert provider.refusals(["cred-blank"]) == 1
    assert not call(provider.url, "cred-blank", "create_note", {"text": "bulbs"})[0]
    assert (provider.calls(["cred-blank"]), provider.refusals(["cred-blank"])) == (2, 1)
    provider.close_sandbox("s-blank")
    assert provider.refusals(["cred-blank"]) == 0


def test_a_sandbox_told_so_answers_in_several_text_parts(
    provider: Provider, call_tool: Callable[..., Any]
) -> None:
    provider.open_sandbox("s-parts", {"cred-parts": "acct-parts"})
    provider.set_answers("s-parts", McpAnswers(text_parts=["operational", "; 2 incidents open"]))
    result = call_tool(provider.url, "cred-parts", "status", {"probe": "p"})
    assert [c.text for c in result.content] == ["operational", "; 2 incidents open"]
    assert result.structuredContent["accountId"] == "acct-parts"
    provider.open_sandbox("s-plain", {"cred-plain": "acct-plain"})  # another sandbox: one part
    assert [
        c.text for c in call_tool(provider.url, "cred-plain", "status", {"probe": "p"}).content
    ] == ["operational"]


def _raw_call(provider: Provider, credential: str) -> httpx.Response:
    """One ``tools/call`` POSTed as is (no session): what the server answers on the wire."""
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "status", "arguments": {"probe": "p"}}}  # fmt: skip
    headers = {
        "Authorization": f"Bearer {credential}",
        "Accept": "application/json, text/event-stream",
    }
    return httpx.post(provider.url, json=body, headers=headers, timeout=30.0)


def test_a_sandbox_told_so_answers_with_an_http_error_counted_as_served_and_refused(
    provider: Provider,
) -> None:
    provider.open_sandbox("s-403", {"cred-403": "acct-403"})
    provider.set_answers("s-403", McpAnswers(http_status=403))
    answer = _raw_call(provider, "cred-403")
    assert answer.status_code == 403
    assert answer.json()["error"]["message"] == "the gateway refused the request for this account"
    assert (provider.calls(["cred-403"]), provider.refusals(["cred-403"])) == (1, 1)


def test_a_sandbox_told_so_streams_past_eight_mebibytes_with_no_length(
    provider: Provider,
) -> None:
    provider.open_sandbox("s-big", {"cred-big": "acct-big"})
    provider.set_answers("s-big", McpAnswers(oversized=True))
    answer = _raw_call(provider, "cred-big")
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert "content-length" not in answer.headers
    assert len(answer.content) > 8 * 1024 * 1024
    event = answer.content.decode().removeprefix("event: message\ndata: ")
    assert len(json.loads(event)["result"]["content"][0]["text"]) > 8 * 1024 * 1024
    assert (provider.calls(["cred-big"]), provider.refusals(["cred-big"])) == (1, 1)


def test_a_sandbox_told_a_fault_answers_with_no_result_counted_as_served_and_refused(
    provider: Provider,
) -> None:
    """Each fault as it arrives on the wire: a JSON-RPC error with HTTP 200, an HTML page, a
    length announced past 8 MiB, an event stream cut off mid-event, one with no response."""
    seen: dict[str, Any] = {}
    for fault in ("rpc-error", "wrong-content-type", "announced-oversize", "no-response"):
        provider.open_sandbox(f"s-{fault}", {f"cred-{fault}": "acct"})
        provider.set_answers(f"s-{fault}", McpAnswers(fault=fault))  # type: ignore[arg-type]
        answer = _raw_call(provider, f"cred-{fault}")
        seen[fault] = (answer.status_code, answer.headers["content-type"].split(";")[0])
        if fault == "rpc-error":
            assert answer.json()["error"]["message"].startswith("the workspace index")
        if fault == "announced-oversize":
            assert int(answer.headers["content-length"]) > 8 * 1024 * 1024
        if fault == "no-response":
            assert b"data:" not in answer.content
        assert (provider.calls([f"cred-{fault}"]), provider.refusals([f"cred-{fault}"])) == (1, 1)
    assert seen == {
        "rpc-error": (200, "application/json"),
        "wrong-content-type": (200, "text/html"),
        "announced-oversize": (200, "application/json"),
        "no-response": (200, "text/event-stream"),
    }
    provider.open_sandbox("s-cut", {"cred-cut": "acct"})
    provider.set_answers("s-cut", McpAnswers(fault="cut-off"))
    with pytest.raises(httpx.RemoteProtocolError):
        _raw_call(provider, "cred-cut")
