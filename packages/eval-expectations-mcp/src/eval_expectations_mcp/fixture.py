"""The ``mcp`` Case field: a chat's MCP accounts, grants, consent and selection, the servers
the operator points at the fixture provider, and its load rules.

Everything here is host state the Host installs before the first Turn; nothing of it reaches
the model as an argument. The rules refuse a fixture that could not mean one thing: duplicate
account ids, a selection of an undeclared account, a grant on a personal account, a revocation
of a grant that was never given.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Literal

import msgspec

from eval_core.kinds import BLOCK, CaseBase

MCP_PREFIX = "mcp_"


class McpAccount(msgspec.Struct, **BLOCK):
    """One connected account of the integration."""

    id: str
    scope: Literal["personal", "shared"]
    status: Literal["active", "action_required", "revoked"]
    is_default: bool = False
    expires_at: str | None = None


class McpSelection(msgspec.Struct, **BLOCK):
    """The account the chat selected, and whether the user consented to sharing it."""

    account_id: str
    shared_consent: bool


class McpReselection(msgspec.Struct, **BLOCK):
    """The chat selects another account while its ``atApproval``-th approval waits (a user
    switching accounts mid-Turn): the calls from then on act for it."""

    account_id: str
    shared_consent: bool
    at_approval: int = 1


class McpAnswers(msgspec.Struct, **BLOCK):
    """How the provider answers this Trial's ``tools/call`` requests, as real servers do."""

    text_parts: list[str] = msgspec.field(default_factory=list)
    """``status`` answers its text in these parts, one text content each."""
    http_status: int | None = None
    """Every call is answered with this HTTP error status (400 to 599) and a JSON-RPC error."""
    oversized: bool = False
    """Every call is answered with an event stream of no stated length past 8 MiB."""
    fault: (
        Literal[
            "rpc-error",
            "wrong-content-type",
            "announced-oversize",
            "cut-off",
            "no-response",
            "unreachable",
        ]
        | None
    ) = None
    """Every call is answered with no result: a JSON-RPC error (HTTP 200), an HTML page, a JSON
    body whose length is announced past 8 MiB, an event cut off mid-answer (the connection
    dropped), an event stream that ends without a response; or is never answered at all
    (``unreachable``: the server is down, so the operator's endpoint refuses every connection and
    the provider is never reached)."""


class McpFixture(msgspec.Struct, **BLOCK):
    """The ``mcp`` block of a Case."""

    visibility: Literal["private", "shared"]
    accounts: list[McpAccount]
    selection: McpSelection | None = None
    shared_grants: list[str] = msgspec.field(default_factory=list)
    revoke_grant_before_approval: str | None = None
    operator_endpoints: list[str] = msgspec.field(default_factory=list)
    """Further integrations (server ids) whose endpoint the operator points at the fixture
    provider, whatever the Soul says of them; the fixture's own server always is."""
    reselect: McpReselection | None = None
    """Another selection, made while an approval waits."""
    answers: McpAnswers | None = None
    """How the provider answers (several text parts, an HTTP error, an oversized stream)."""


def fixture_problems(fixture: McpFixture) -> Iterator[tuple[str, str]]:
    """The fixture's own rules (ids, selection, grants, revocation)."""
    if not fixture.accounts:
        yield "$.mcp.accounts", "must declare at least one account"
    seen: dict[str, McpAccount] = {}
    for index, account in enumerate(fixture.accounts):
        if not account.id:
            yield f"$.mcp.accounts[{index}].id", "must be a non-empty string"
        if account.id in seen:
            yield f"$.mcp.accounts[{index}].id", f"duplicate account id {account.id!r}"
        seen.setdefault(account.id, account)
        if account.expires_at is not None:
            try:
                datetime.fromisoformat(account.expires_at.replace("Z", "+00:00"))
            except ValueError:
                yield (
                    f"$.mcp.accounts[{index}].expiresAt",
                    f"{account.expires_at!r} is not an ISO 8601 timestamp",
                )
    selection = fixture.selection
    if selection is not None and selection.account_id not in seen:
        yield (
            "$.mcp.selection.accountId",
            f"selects {selection.account_id!r}, which is not a declared account",
        )
    granted: set[str] = set()
    for index, account_id in enumerate(fixture.shared_grants):
        grantee = seen.get(account_id)
        if grantee is None:
            yield f"$.mcp.sharedGrants[{index}]", f"grants {account_id!r}, not a declared account"
        elif grantee.scope != "shared":
            yield (
                f"$.mcp.sharedGrants[{index}]",
                f"grants {account_id!r}, a {grantee.scope} account: grants are for shared ones",
            )
        if account_id in granted:
            yield f"$.mcp.sharedGrants[{index}]", f"duplicate grant {account_id!r}"
        granted.add(account_id)
    served: set[str] = set()
    for index, server_id in enumerate(fixture.operator_endpoints):
        if not server_id:
            yield f"$.mcp.operatorEndpoints[{index}]", "must be a non-empty server id"
        elif server_id in served:
            yield f"$.mcp.operatorEndpoints[{index}]", f"duplicate server id {server_id!r}"
        served.add(server_id)
    reselect = fixture.reselect
    if reselect is not None:
        if reselect.account_id not in seen:
            yield (
                "$.mcp.reselect.accountId",
                f"selects {reselect.account_id!r}, which is not a declared account",
            )
        if isinstance(reselect.at_approval, bool) or reselect.at_approval < 1:
            yield "$.mcp.reselect.atApproval", "must be an integer >= 1 (the first approval is 1)"
    answers = fixture.answers
    if answers is not None:
        status = answers.http_status
        if status is not None and (isinstance(status, bool) or not 400 <= status <= 599):
            yield "$.mcp.answers.httpStatus", f"{status!r} is not an HTTP error status (400-599)"
        chosen = [
            bool(answers.text_parts),
            status is not None,
            answers.oversized,
            answers.fault is not None,
        ]
        if sum(chosen) > 1:
            yield "$.mcp.answers", "choose one of textParts, httpStatus, oversized and fault"
    revoked = fixture.revoke_grant_before_approval
    if revoked is not None and revoked not in granted:
        yield (
            "$.mcp.revokeGrantBeforeApproval",
            f"revokes {revoked!r}, which is not in sharedGrants",
        )


def tool_problems(case: CaseBase, has_mcp: bool) -> Iterator[tuple[str, str]]:
    """MCP Tools run for real: no scripted result in any Turn; a declared one needs ``mcp``."""
    for index, result in enumerate(case.tool_results):
        if result.name.startswith(MCP_PREFIX):
            yield (
                f"$.toolResults[{index}].name",
                f"{result.name!r} is an MCP Tool: it runs for real; never script its result",
            )
    for t_index, turn in enumerate(case.field("journey") or ()):
        for r_index, result in enumerate(getattr(turn, "tool_results", ()) or ()):
            if result.name.startswith(MCP_PREFIX):
                yield (
                    f"$.journey[{t_index}].toolResults[{r_index}].name",
                    f"{result.name!r} is an MCP Tool: it runs for real; never script its result",
                )
    if not has_mcp:
        for index, tool in enumerate(case.tools):
            if tool.name.startswith(MCP_PREFIX):
                yield (
                    f"$.tools[{index}].name",
                    f"{tool.name!r} is an MCP Tool: the Case needs an 'mcp' fixture",
                )
