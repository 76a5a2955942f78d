"""``mcp_provider_call_count`` is total: any record gives a verdict, never a raise, and only an
observed count equal to the expected one passes (its refusals too, when asked); the witness
check flags an MCP call recorded as succeeded that the provider refused."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence, ToolResult
from eval_expectations_mcp.kind import McpProviderCallCount, refused_but_succeeded, score
from eval_expectations_mcp.setup import McpRecord


@given(calls=st.one_of(st.none(), st.integers(-3, 6)), count=st.integers(0, 5))
def test_a_missing_count_fails_even_when_zero_is_expected(calls: int | None, count: int) -> None:
    evidence = Evidence(tier="l3")
    evidence.put(McpRecord(provider_calls=calls))
    verdict = score(McpProviderCallCount(count=count), evidence)
    assert verdict.detail
    assert verdict.passed == (calls == count)


@given(record=st.dictionaries(st.text(max_size=8), st.integers() | st.none(), max_size=3))
def test_plain_data_is_never_an_observation(record: dict[str, Any]) -> None:
    evidence = Evidence(tier="l3", records={"eval_expectations_mcp.setup:McpRecord": record})
    verdict = score(McpProviderCallCount(count=0), evidence)
    assert not verdict.passed and verdict.detail


def test_no_record_fails_even_for_zero() -> None:
    verdict = score(McpProviderCallCount(count=0), Evidence(tier="l3"))
    assert not verdict.passed
    assert "not observed" in verdict.detail


@given(
    refusals=st.one_of(st.none(), st.integers(0, 3)),
    refused=st.one_of(st.none(), st.integers(0, 3)),
)
def test_refusals_are_scored_only_when_asked_and_observed(
    refusals: int | None, refused: int | None
) -> None:
    evidence = Evidence(tier="l3")
    evidence.put(McpRecord(provider_calls=3, provider_refusals=refusals))
    verdict = score(McpProviderCallCount(count=3, refused=refused), evidence)
    assert verdict.detail
    assert verdict.passed == (refused is None or refusals == refused)


def result(call_id: str, status: str, name: str = "mcp_eval_mcp_create_note_x") -> ToolResult:
    return ToolResult(call_id=call_id, name=name, arguments={}, status=status)


def test_a_refusal_recorded_as_a_success_contradicts_the_provider() -> None:
    evidence = Evidence(tier="l3", tool_results=[result("c1", "succeeded")])
    evidence.put(McpRecord(provider_calls=1, provider_refusals=1))
    (line,) = refused_but_succeeded(evidence)
    assert "c1" in line and "refused 1" in line


def test_a_refusal_recorded_as_failed_or_a_success_answered_is_no_contradiction() -> None:
    evidence = Evidence(
        tier="l3",
        tool_results=[
            result("c1", "failed"),
            result("c2", "succeeded"),
            result("c3", "succeeded", name="lookup_ticket"),  # not an MCP Tool
        ],
    )
    evidence.put(McpRecord(provider_calls=2, provider_refusals=1))
    assert list(refused_but_succeeded(evidence)) == []
    unobserved = Evidence(tier="l3", tool_results=[result("c1", "succeeded")])
    unobserved.put(McpRecord(provider_calls=1))  # refusals not observed: nothing to compare
    assert list(refused_but_succeeded(unobserved)) == []
