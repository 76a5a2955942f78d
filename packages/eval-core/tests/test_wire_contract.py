"""The requests no model API takes: every Trial's requests are held to the vendors' rules over
the neutral shape, whoever the Host; a well-formed history says nothing, and the check is
total over anything a Host may hand the binding."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence, ModelRequest
from eval_core._case.witness import contradictions
from eval_core._running.trial import TrialResult, decide

ASKED = {"role": "user", "content": "Where is order 4471?"}
CALLS = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {"call_id": "c1", "name": "lookup_order", "arguments": {"orderId": "4471"}},
        {"call_id": "c2", "name": "get_current_time", "arguments": {}},
    ],
}
ANSWER_1 = {"role": "tool", "tool_call_id": "c1", "name": "lookup_order", "content": "{}"}
ANSWER_2 = {"role": "tool", "tool_call_id": "c2", "name": "get_current_time", "content": "{}"}
FILE = {"type": "file", "mediaType": "application/pdf", "filename": "a.pdf", "data": "JVBE"}


def _sent(*histories: list[Any]) -> Evidence:
    requests = [ModelRequest(system="s", messages=list(h), tools=[]) for h in histories]
    return Evidence(tier="l2", model_requests=requests)


def test_a_well_formed_history_says_nothing() -> None:
    later = [
        ASKED,
        CALLS,
        ANSWER_2,  # answered in any order, as both vendors allow
        ANSWER_1,
        {"role": "assistant", "content": "It ships today."},
        {"role": "user", "content": [{"type": "text", "text": "And this?"}, FILE]},
    ]
    assert contradictions(_sent([ASKED], [ASKED, CALLS, ANSWER_1, ANSWER_2], later)) == []


@pytest.mark.parametrize(
    ("history", "fault"),
    [
        ([ASKED, ANSWER_1], 'has a Tool result (message 2) for call "c1", which no open call made'),
        (
            [ASKED, CALLS, ANSWER_1, ANSWER_1],
            'has a Tool result (message 4) for call "c1", which no open call made',
        ),
        (
            [ASKED, CALLS, {**ANSWER_1, "tool_call_id": ""}],
            "has a Tool result (message 3) for no call, which no open call made",
        ),
        ([ASKED, CALLS, ANSWER_1, ASKED], 'goes on (message 4) before call "c2" is answered'),
        ([ASKED, CALLS, ANSWER_1], 'ends before call "c2" is answered'),
        ([{**ASKED, "role": ""}], 'has message 1 of role ""'),
        ([ASKED, "a string"], 'has message 2 of role "a string"'),
        (
            [ASKED, {**CALLS, "tool_calls": [{"call_id": "c1", "arguments": {}}]}],
            "has a Tool call without an id or a name (message 2)",
        ),
        (
            [ASKED, {**CALLS, "tool_calls": [{"call_id": "c1", "name": "lookup_order"}]}],
            'has call "c1" without arguments (message 2)',
        ),
        (
            [ASKED, {**CALLS, "tool_calls": 5}],
            "has message 2 whose tool_calls are not a list",
        ),
        (
            [ASKED, CALLS, ANSWER_1, ANSWER_2, CALLS],
            'has call id "c1" twice (message 5)',
        ),
        (
            [{"role": "user", "content": [{"": "text", "text": "lost"}]}],
            'has message 1 with a part of type "None" (the wires send text, file and image)',
        ),
        (
            [{"role": "user", "content": [{"type": "text", "text": None}]}],
            "has message 1 with a text part without text",
        ),
    ],
)
def test_each_request_a_model_api_refuses_fails_the_trial_naming_it(
    history: list[Any], fault: str
) -> None:
    evidence = _sent([ASKED], history)
    assert contradictions(evidence) == [
        f"request no model API takes: model request #2 {fault}, which no model API accepts"
    ]
    decided = decide(TrialResult(case_id="c", trial=1, outcome="passed"), evidence, [], {})
    assert decided.outcome == "failed"


def test_a_fault_carried_on_into_the_next_request_is_named_in_each() -> None:
    """A request is checked from where the last well-formed one ends, never past a fault."""
    orphan = [ASKED, ANSWER_1]
    lines = contradictions(_sent(orphan, [*orphan, CALLS, ANSWER_1, ANSWER_2]))
    assert [line.split(" (message")[0] for line in lines] == [
        "request no model API takes: model request #1 has a Tool result",
        "request no model API takes: model request #2 has a Tool result",
    ]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner),
    max_leaves=12,
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system", ""])},
    optional={
        "content": JSON,
        "tool_calls": st.lists(
            st.fixed_dictionaries({}, optional={"call_id": JSON, "name": JSON, "arguments": JSON}),
            max_size=3,
        )
        | JSON,
        "tool_call_id": st.sampled_from(["c1", "c2", ""]) | JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(MESSAGE | JSON, max_size=6))
def test_the_check_is_total_over_any_history(history: list[Any]) -> None:
    lines = contradictions(_sent(history))
    assert all(isinstance(line, str) and "model request #1" in line for line in lines)
    assert len(lines) <= 1  # one line a request: its first fault
