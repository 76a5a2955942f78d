"""``mcp_provider_call_count`` is total: any record shape gives a verdict, never a raise, and
only an observed integer count equal to the expected one passes."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from eval_core.evidence import Evidence
from eval_expectations_mcp.kind import McpProviderCallCount, score

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)


@given(record=json_values, count=st.integers(min_value=0, max_value=5))
def test_any_record_gets_a_verdict_and_only_an_equal_int_passes(record: Any, count: int) -> None:
    evidence = Evidence(tier="l3", records={"mcp": record})
    verdict = score(McpProviderCallCount(count=count), evidence)
    assert verdict.detail
    observed = record.get("providerCalls") if isinstance(record, dict) else None
    expected_pass = (
        isinstance(observed, int) and not isinstance(observed, bool) and observed == count
    )
    assert verdict.passed == expected_pass


@given(calls=st.one_of(st.none(), st.integers(-3, 6)), count=st.integers(0, 5))
def test_a_missing_count_fails_even_when_zero_is_expected(calls: int | None, count: int) -> None:
    verdict = score(
        McpProviderCallCount(count=count),
        Evidence(tier="l3", records={"mcp": {"providerCalls": calls}}),
    )
    assert verdict.passed == (calls == count)


def test_no_record_fails_even_for_zero() -> None:
    verdict = score(McpProviderCallCount(count=0), Evidence(tier="l3"))
    assert not verdict.passed
    assert "not observed" in verdict.detail
