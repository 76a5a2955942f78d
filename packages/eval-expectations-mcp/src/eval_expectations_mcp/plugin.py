"""Entry point of the mcp family: the ``mcp`` Case field, its load rules, the
``mcp_provider_call_count`` kind, and its witness check (a provider refusal recorded as a
success)."""

from __future__ import annotations

from eval_core.kinds import (
    L2,
    L3,
    CaseBase,
    CaseField,
    KindSpec,
    LoadContext,
    Location,
    TrialFixture,
    WitnessCheck,
    at_least,
    hookimpl,
    properties,
)
from eval_expectations_mcp.fixture import McpFixture, fixture_problems, tool_problems
from eval_expectations_mcp.kind import CHECKS, McpProviderCallCount, check, score
from eval_expectations_mcp.setup import FIXTURE, McpRecord, host_problems


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=McpProviderCallCount,
            witness="provider",
            evidence_at=Location.record_of(McpRecord),
            scorer=score,
            tiers=L2 | L3,  # at L2 where the Host offers McpHost (refused by service elsewhere)
            check=check,
            json_schema=properties(count=at_least(0), refused=at_least(0)),
            seam_independent=True,  # an unobserved count is a failure, never unexercised
            description=(
                "tools/call requests the MCP provider actually served: {count}; with "
                "{refused}, how many of them it answered isError"
                " Needs `mcp`."
            ),
            examples=[{"kind": "mcp_provider_call_count", "count": 0}],
        )
    ]


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name="mcp",
            type=McpFixture,
            tiers=L2 | L3,  # at L2 where the Host offers McpHost (refused by service elsewhere)
            description=(
                "MCP host state: {visibility, accounts, selection?, sharedGrants?, "
                "revokeGrantBeforeApproval?, operatorEndpoints?}; operatorEndpoints: further "
                "server ids the operator points at the fixture provider (eval-mcp always is)."
            ),
            examples=[
                {
                    "visibility": "private",
                    "accounts": [
                        {
                            "id": "personal-default",
                            "scope": "personal",
                            "status": "active",
                            "isDefault": True,
                        }
                    ],
                }
            ],
        )
    ]


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    fixture = case.field("mcp")
    problems = list(tool_problems(case, fixture is not None))
    if fixture is not None:
        problems.extend(fixture_problems(fixture))
        problems.extend(host_problems(fixture, context, case.tier))
        if case.field("routine") is not None:
            problems.append(("$.mcp", "an MCP Case cannot also be a Routine"))
    elif any(isinstance(e, McpProviderCallCount) for e in case.expect):
        problems.extend(
            (f"$.expect[{i}].kind", "mcp_provider_call_count needs an 'mcp' fixture")
            for i, e in enumerate(case.expect)
            if isinstance(e, McpProviderCallCount)
        )
    return problems


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [FIXTURE]


@hookimpl
def eval_witness_checks() -> list[WitnessCheck]:
    return list(CHECKS)
