"""The fixture provider's ``status`` answers as the original's does (issue 21, section 5): the
text ``operational`` and the arguments echoed with ``status`` and ``accountId``; ``probe`` is
required. Read back over the real transport from the provider process."""

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


def status(url: str, credential: str, arguments: dict[str, Any]) -> Any:
    async def once() -> Any:
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {credential}"})
        async with (
            http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await session.call_tool("status", arguments)

    return asyncio.run(once())


def test_status_answers_operational_for_the_account(provider: Provider) -> None:
    provider.open_sandbox("s-up", {"cred-up": "acct-up"})
    result = status(provider.url, "cred-up", {"probe": "ping"})
    assert not result.isError
    assert [(c.type, c.text) for c in result.content] == [("text", "operational")]
    assert result.structuredContent == {
        "probe": "ping",
        "status": "operational",
        "accountId": "acct-up",
    }


def test_status_without_a_probe_is_refused_before_it_counts(provider: Provider) -> None:
    provider.open_sandbox("s-np", {"cred-np": "acct-np"})
    result = status(provider.url, "cred-np", {})
    assert result.isError
    assert provider.calls(["cred-np"]) == 0
