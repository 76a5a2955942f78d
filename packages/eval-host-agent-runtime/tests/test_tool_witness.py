"""The Tool witness keeps each call's arguments as the Tool received them: a copy, however the
runtime or the Tool changes the call's own afterwards."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_runtime.model import ToolCallRequest
from agent_runtime.tools import ToolOutcome
from eval_host_agent_runtime.ports import ToolWitness, _copied

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _containers(value: Any) -> list[int]:
    if isinstance(value, dict):
        return [id(value), *(i for v in value.values() for i in _containers(v))]
    if isinstance(value, list):
        return [id(value), *(i for v in value for i in _containers(v))]
    return []


@given(JSON)
def test_a_copy_is_equal_and_shares_no_container(value: Any) -> None:
    copied = _copied(value)
    assert copied == value
    assert not set(_containers(copied)) & set(_containers(value))


class Mutating:
    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        call.arguments["ticketId"] = "T-2"  # the Tool (or the runtime) changes it later
        call.arguments["nested"]["seen"].append(1)
        return ToolOutcome("succeeded", {"ok": True})


def test_a_call_changed_after_it_ran_is_seen_as_it_was_received() -> None:
    witness = ToolWitness(Mutating())
    witness.execute(ToolCallRequest("c1", "lookup", {"ticketId": "T-1", "nested": {"seen": []}}))
    assert witness.received[0].arguments == {"ticketId": "T-1", "nested": {"seen": []}}


def test_a_value_that_is_not_json_is_still_copied() -> None:
    value = {"when": {1, 2}}
    copied = _copied(value)
    assert copied == value and copied["when"] is not value["when"]


def test_a_witness_with_no_tools_behind_it_refuses_the_call_saying_so() -> None:
    """The L3 Host's record (``ToolWitness()``) only lends its list to the witness of each
    worker pass (``around``); run as an executor itself, it says what is wrong, not that
    ``None`` has no ``execute``."""
    record = ToolWitness()
    with pytest.raises(RuntimeError, match="a ToolWitness with no Tools behind it"):
        record.execute(ToolCallRequest("c1", "lookup", {"ticketId": "T-1"}))
    seen = record.around(Mutating())
    seen.execute(ToolCallRequest("c2", "lookup", {"ticketId": "T-1", "nested": {"seen": []}}))
    assert [c.call_id for c in record.received] == ["c1", "c2"]
