"""The fixture provider process, and one ``tools/call`` to it over its real transport
(streamable HTTP on loopback)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from eval_expectations_mcp.setup import Provider

CallTool = Callable[[str, str, str, dict[str, Any]], CallToolResult]


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    found = Provider()
    found.ensure()
    try:
        yield found
    finally:
        found.stop()


def _call_tool(url: str, credential: str, name: str, arguments: dict[str, Any]) -> CallToolResult:
    async def once() -> CallToolResult:
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {credential}"})
        async with (
            http,
            streamable_http_client(url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await session.call_tool(name, arguments)

    return asyncio.run(once())


@pytest.fixture
def call_tool() -> CallTool:
    """``call_tool(url, credential, name, arguments)``: the provider's answer to one call, made
    with ``credential`` as its bearer token."""
    return _call_tool
