"""``mcp_provider_call_count`` is total: any record gives a verdict, never a raise, and only an
observed count equal to the expected one passes."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from eval_core.evidence import Evidence
from eval_expectations_mcp.kind import McpProviderCallCount, score
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
