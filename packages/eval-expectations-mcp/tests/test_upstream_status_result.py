"""The fixture provider's ``status`` answers as the original's does (issue 21, section 5): the
text ``operational`` and the arguments echoed with ``status`` and ``accountId``; ``probe`` is
required. Read back over the real transport from the provider process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eval_expectations_mcp.setup import Provider


def test_status_answers_operational_for_the_account(
    provider: Provider, call_tool: Callable[..., Any]
) -> None:
    provider.open_sandbox("s-up", {"cred-up": "acct-up"})
    result = call_tool(provider.url, "cred-up", "status", {"probe": "ping"})
    assert not result.isError
    assert [(c.type, c.text) for c in result.content] == [("text", "operational")]
    assert result.structuredContent == {
        "probe": "ping",
        "status": "operational",
        "accountId": "acct-up",
    }


def test_status_without_a_probe_is_refused_before_it_counts(
    provider: Provider, call_tool: Callable[..., Any]
) -> None:
    provider.open_sandbox("s-np", {"cred-np": "acct-np"})
    result = call_tool(provider.url, "cred-np", "status", {})
    assert result.isError
    assert provider.calls(["cred-np"]) == 0
