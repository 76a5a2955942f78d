"""Loader rules of the mcp family: each refusal names the file, the JSON path and the reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.loader import Loader
from tests.conftest import Refuses, WriteCase, minimal_case

STATUS = "mcp_eval_mcp_status_51b1cdd4ae261c34"
DECL = {"name": STATUS, "inputSchema": {"type": "object"}}
COUNT = {"kind": "mcp_provider_call_count", "count": 1}
SHARED = {"id": "shared-working", "scope": "shared", "status": "active"}
PERSONAL = {"id": "personal-default", "scope": "personal", "status": "active", "isDefault": True}
BLOCK: dict[str, Any] = {
    "visibility": "shared",
    "accounts": [PERSONAL, SHARED],
    "selection": {"accountId": "shared-working", "sharedConsent": True},
    "sharedGrants": ["shared-working"],
}


def mcp_case(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(tier="l3", agent="workspace", tools=[DECL], mcp=dict(BLOCK), expect=[COUNT])
    case.update(overrides)
    return case


def test_an_mcp_case_loads_with_its_block_typed(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(mcp_case(mcp={**BLOCK, "revokeGrantBeforeApproval": "shared-working"}))
    [case] = loader.load(corpus_dir).cases
    block = case.field("mcp")
    assert block.selection.account_id == "shared-working"
    assert block.revoke_grant_before_approval == "shared-working"
    assert block.answers is None


def test_the_answers_the_provider_gives_are_typed(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(mcp_case(mcp={**BLOCK, "answers": {"textParts": ["operational", "; busy"]}}))
    [case] = loader.load(corpus_dir).cases
    answers = case.field("mcp").answers
    assert (answers.text_parts, answers.http_status, answers.oversized) == (
        ["operational", "; busy"],
        None,
        False,
    )


@pytest.mark.parametrize(
    ("case", "path", "reason"),
    [
        (  # L2 where a Host offers the service (the framework Hosts); this one does not
            mcp_case(tier="l2"),
            "$.mcp",
            "needs the Host service McpHost, which Host 'agent-runtime' does not offer at l2",
        ),
        (
            mcp_case(mcp={**BLOCK, "visibility": "public"}),
            "$.mcp.visibility",
            "Invalid enum value 'public'",
        ),
        (
            mcp_case(mcp={**BLOCK, "accounts": [SHARED, SHARED]}),
            "$.mcp.accounts[1].id",
            "duplicate account id 'shared-working'",
        ),
        (
            mcp_case(mcp={**BLOCK, "accounts": [{**SHARED, "status": "paused"}]}),
            "$.mcp.accounts[0].status",
            "Invalid enum value 'paused'",
        ),
        (
            mcp_case(mcp={**BLOCK, "selection": {"accountId": "nobody", "sharedConsent": True}}),
            "$.mcp.selection.accountId",
            "selects 'nobody', which is not a declared account",
        ),
        (
            mcp_case(
                mcp={**BLOCK, "selection": {"accountId": "shared-working", "sharedConsent": "yes"}}
            ),
            "$.mcp.selection.sharedConsent",
            "Expected `bool`",
        ),
        (
            mcp_case(mcp={**BLOCK, "sharedGrants": ["personal-default"]}),
            "$.mcp.sharedGrants[0]",
            "a personal account: grants are for shared ones",
        ),
        (
            mcp_case(mcp={**BLOCK, "revokeGrantBeforeApproval": "personal-default"}),
            "$.mcp.revokeGrantBeforeApproval",
            "revokes 'personal-default', which is not in sharedGrants",
        ),
        (
            mcp_case(toolResults=[{"name": STATUS, "output": {"accountId": "x"}}]),
            "$.toolResults[0].name",
            "is an MCP Tool: it runs for real; never script its result",
        ),
        (
            mcp_case(
                journey=[
                    {
                        "input": [{"role": "user", "content": "again"}],
                        "toolResults": [{"name": STATUS, "output": {}}],
                    }
                ]
            ),
            "$.journey[0].toolResults[0].name",
            "is an MCP Tool: it runs for real; never script its result",
        ),
        (
            minimal_case(tier="l3", tools=[DECL], expect=[{"kind": "run_status", "status": "x"}]),
            "$.tools[0].name",
            "the Case needs an 'mcp' fixture",
        ),
        (
            minimal_case(tier="l3", expect=[COUNT]),
            "$.expect[0].kind",
            "mcp_provider_call_count needs an 'mcp' fixture",
        ),
        (
            mcp_case(expect=[{"kind": "mcp_provider_call_count", "count": -1}]),
            "$.expect[0].count",
            "must be an integer >= 0",
        ),
        (
            mcp_case(expect=[{"kind": "mcp_provider_call_count", "count": 1.5}]),
            "$.expect[0].count",
            "Expected `int`",
        ),
        (
            mcp_case(mcp={**BLOCK, "accounts": [{**SHARED, "expiresAt": "soon"}]}),
            "$.mcp.accounts[0].expiresAt",
            "'soon' is not an ISO 8601 timestamp",
        ),
        (
            mcp_case(expect=[{"kind": "mcp_provider_call_count", "count": 1, "refused": 2}]),
            "$.expect[0].refused",
            "must be an integer from 0 to count (1)",
        ),
        (
            mcp_case(mcp={**BLOCK, "operatorEndpoints": ["eval-mcp-archive", "eval-mcp-archive"]}),
            "$.mcp.operatorEndpoints[1]",
            "duplicate server id 'eval-mcp-archive'",
        ),
        (
            mcp_case(mcp={**BLOCK, "reselect": {"accountId": "nobody", "sharedConsent": False}}),
            "$.mcp.reselect.accountId",
            "selects 'nobody', which is not a declared account",
        ),
        (
            mcp_case(
                mcp={
                    **BLOCK,
                    "reselect": {
                        "accountId": "personal-default",
                        "sharedConsent": False,
                        "atApproval": 0,
                    },
                }
            ),
            "$.mcp.reselect.atApproval",
            "must be an integer >= 1 (the first approval is 1)",
        ),
        (
            mcp_case(mcp={**BLOCK, "answers": {"httpStatus": 200}}),
            "$.mcp.answers.httpStatus",
            "200 is not an HTTP error status (400-599)",
        ),
        (
            mcp_case(mcp={**BLOCK, "answers": {"textParts": ["a", "b"], "oversized": True}}),
            "$.mcp.answers",
            "choose one of textParts, httpStatus, oversized and fault",
        ),
    ],
)
def test_an_mcp_rule_is_refused_with_file_path_and_reason(
    refuses: Refuses, case: dict[str, Any], path: str, reason: str
) -> None:
    refuses(case, path, reason, alone=False)
