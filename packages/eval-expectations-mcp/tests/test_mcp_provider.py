"""The fixture provider over its real transport (streamable HTTP on loopback): it knows accounts
by credential, counts the ``tools/call`` requests it served per credential, and reading the
count is not itself a ``tools/call``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from eval_expectations_mcp.setup import Provider


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    found = Provider()
    found.ensure()
    try:
        yield found
    finally:
        found.stop()


def call(url: str, credential: str, name: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    async def once() -> tuple[bool, Any]:
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {credential}"})
        async with (
            http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool(name, arguments)
            return bool(result.isError), result.structuredContent

    return asyncio.run(once())


def test_the_provider_acts_for_the_account_of_the_credential(provider: Provider) -> None:
    provider.register({"cred-a": "acct-a", "cred-b": "acct-b"})
    is_error, structured = call(provider.url, "cred-a", "status", {"probe": "x"})
    assert not is_error and structured["accountId"] == "acct-a"
    is_error, structured = call(provider.url, "cred-b", "create_note", {"text": "hi"})
    assert not is_error and structured["accountId"] == "acct-b"


def test_the_count_is_per_credential_and_reading_it_is_no_call(provider: Provider) -> None:
    provider.register({"cred-c": "acct-c"})
    call(provider.url, "cred-c", "status", {"probe": "p"})
    call(provider.url, "cred-c", "status", {"probe": "p"})
    assert provider.calls(["cred-c"]) == 2
    assert provider.calls(["cred-c"]) == 2  # reading is no call
    assert provider.calls(["cred-unused"]) == 0


def test_an_unknown_credential_is_refused_but_counted(provider: Provider) -> None:
    is_error, _ = call(provider.url, "cred-nobody", "status", {"probe": "p"})
    assert is_error
    assert provider.calls(["cred-nobody"]) == 1


def test_a_dead_provider_is_not_observed_and_restarts(provider: Provider) -> None:
    assert provider.process is not None
    provider.process.kill()
    provider.process.wait()
    assert provider.calls(["cred-a"]) is None  # not observed is never zero
    provider.ensure()
    provider.register({"cred-d": "acct-d"})
    assert call(provider.url, "cred-d", "status", {"probe": "p"})[1]["accountId"] == "acct-d"
