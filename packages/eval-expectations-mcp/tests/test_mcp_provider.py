"""The fixture provider over its real stdio transport: it counts the ``tools/call`` requests it
served per namespace, and reading the count is not itself a ``tools/call``."""

from __future__ import annotations

import sys

from agent_runtime.mcp_client import McpProvider


def test_the_provider_counts_tools_call_per_namespace() -> None:
    provider = McpProvider([sys.executable, "-m", "eval_expectations_mcp.provider"])
    try:
        args = {"namespace": "a", "account_id": "acct", "arguments": {"probe": "x"}}
        is_error, structured, _text = provider.call_tool("status", args)
        assert not is_error and structured["accountId"] == "acct"
        provider.call_tool("create_note", {**args, "arguments": {"text": "hi"}})
        assert provider.read_json("eval://calls/a") == {"toolsCall": 2}
        assert provider.read_json("eval://calls/a") == {"toolsCall": 2}  # reading is no call
        assert provider.read_json("eval://calls/b") == {"toolsCall": 0}  # isolated namespaces
    finally:
        provider.close()
