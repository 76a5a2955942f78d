"""Issue 21, section 7: ``tool_call_count`` takes the original's optional ``name``."""

from __future__ import annotations

from eval_core._case.evidence import Evidence, ToolCall
from eval_expectations_turn.tools import ToolCallCount, eval_kinds

SPEC = next(s for s in eval_kinds() if s.struct is ToolCallCount)
CALLS = [
    ToolCall(call_id="c1", name="github_issue_search", arguments={}),
    ToolCall(call_id="c2", name="lookup_ticket", arguments={"ticketId": "T-1"}),
    ToolCall(call_id="c3", name="github_issue_search", arguments={"query": "x"}),
]
OBSERVED = Evidence(tier="l2", tool_calls=CALLS)


def test_a_named_count_counts_only_that_tools_calls() -> None:
    verdict = SPEC.scorer(ToolCallCount(count=2, name="github_issue_search"), OBSERVED)
    assert verdict.passed
    assert verdict.detail.startswith('2 tool call(s) of "github_issue_search", expected 2')
    wrong = SPEC.scorer(ToolCallCount(count=3, name="github_issue_search"), OBSERVED)
    assert not wrong.passed


def test_a_count_without_a_name_still_counts_every_call() -> None:
    assert SPEC.scorer(ToolCallCount(count=3), OBSERVED).passed
    assert not SPEC.scorer(ToolCallCount(count=2), OBSERVED).passed


def test_a_name_never_called_counts_zero() -> None:
    assert SPEC.scorer(ToolCallCount(count=0, name="send_slack_message"), OBSERVED).passed


def test_an_empty_name_is_refused_and_the_schema_says_so() -> None:
    assert SPEC.check is not None
    assert SPEC.check(ToolCallCount(count=0, name=" "), None) == [
        (".name", "must be a non-empty string")
    ]
    assert SPEC.json_schema["properties"]["name"]["minLength"] == 1


JOURNEY = Evidence(
    tier="l3",
    tool_calls=[
        ToolCall(call_id="c1", name="lookup_ticket", arguments={}, turn_index=1),
        ToolCall(call_id="c1", name="lookup_ticket", arguments={}, turn_index=2),
        ToolCall(call_id="c2", name="refund_order", arguments={}, turn_index=2),
    ],
)


def test_a_turn_index_counts_only_the_calls_received_in_that_turn() -> None:
    one = SPEC.scorer(ToolCallCount(count=1, name="refund_order", turn_index=2), JOURNEY)
    assert one.passed
    assert one.detail.startswith('1 tool call(s) of "refund_order" in Turn 2, expected 1; ')
    assert "refund_order(c2, Turn 2)" in one.detail
    assert not SPEC.scorer(
        ToolCallCount(count=1, name="refund_order", turn_index=1), JOURNEY
    ).passed
    assert SPEC.scorer(ToolCallCount(count=0, name="refund_order", turn_index=1), JOURNEY).passed
    assert SPEC.scorer(ToolCallCount(count=2, turn_index=2), JOURNEY).passed
    assert SPEC.scorer(ToolCallCount(count=2, name="lookup_ticket"), JOURNEY).passed


def test_a_turn_index_below_one_is_refused() -> None:
    assert SPEC.check is not None
    assert SPEC.check(ToolCallCount(count=0, turn_index=0), None) == [
        (".turnIndex", "must be an integer ≥ 1")
    ]
    assert SPEC.json_schema["properties"]["turnIndex"]["minimum"] == 1
