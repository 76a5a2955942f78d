"""The account the chat acts for is the one the mcp fixture selected, then the default.

No Case can see which account the agent's MCP client presents under this Host: the provider's
status Tool names it only in structured content, which langchain-mcp-adapters leaves out of the
text the graph and the model receive, and ``mcp_provider_call_count`` counts the calls of every
account the Case declares. So the selection is pinned here, on the Host's own MCP state.
"""

from __future__ import annotations

from eval_core.records import McpAccount
from eval_host_langgraph.mcp import McpConnections


def _account(account_id: str, *, default: bool = False) -> McpAccount:
    return McpAccount(
        account_id=account_id,
        scope="personal",
        status="active",
        credential=f"cred-{account_id}",
        is_default=default,
        expires_at=None,
    )


def _bearers(state: McpConnections) -> set[str]:
    return {c["headers"]["Authorization"] for c in state.connections().values()}


def test_a_selected_account_is_acted_for_over_the_default_on_every_server() -> None:
    state = McpConnections()
    state.connect_integration("eval-mcp", "http://127.0.0.1:1/mcp")
    state.connect_integration("workspace", "http://127.0.0.1:1/workspace")
    state.add_account(_account("on-call", default=True))
    state.add_account(_account("lead"))
    assert state.acting_for() == "on-call"
    state.select("lead", shared_consent=False)
    assert state.acting_for() == "lead"
    assert _bearers(state) == {"Bearer cred-lead"}


def test_with_no_selection_and_no_default_the_only_account_is_acted_for() -> None:
    state = McpConnections()
    state.connect_integration("workspace", "http://127.0.0.1:1/workspace")
    state.add_account(_account("on-call"))
    assert _bearers(state) == {"Bearer cred-on-call"}
