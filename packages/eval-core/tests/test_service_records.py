"""The records a Host's service and a family's fixture share: the journey's folded Turn, and a
family's own record key for a shared record (a subclass, found by its own type only)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence, record_key
from eval_core.records import Admission, RoutineSchedule, TurnRecord, folded

STATUSES = st.sampled_from(["succeeded", "failed", "waiting", None])
TURNS = st.lists(
    st.builds(
        TurnRecord,
        turn_index=st.integers(0, 9),
        run_id=st.text(max_size=3),
        run_status=STATUSES,
        state_status=STATUSES,
        turn_status=STATUSES,
    ),
    max_size=6,
)


@given(TURNS)
def test_folded_is_the_first_turn_that_did_not_succeed_else_the_last(
    turns: list[TurnRecord],
) -> None:
    found = folded(turns)
    failing = [t for t in turns if t.run_status != "succeeded"]
    if not turns:
        assert found is None
    elif failing:
        assert found is failing[0]
    else:
        assert found is turns[-1]


class FamilyAdmission(Admission, frozen=True):
    """A family's Evidence record over the shared one: its own key, the same fields."""


ADMITTED = Admission(
    run_count=1,
    state_count=1,
    artifact_count=1,
    invocation_count=1,
    run={"id": "r1", "status": "queued"},
    state_status="queued",
    request=None,
    account_id="a1",
    inbox_run_id="r1",
    inbox_correlated=True,
    error=None,
)


def test_a_family_record_over_a_shared_one_has_its_own_key_and_the_same_fields() -> None:
    copied = msgspec.convert(ADMITTED, FamilyAdmission, from_attributes=True)
    assert msgspec.to_builtins(copied) == msgspec.to_builtins(ADMITTED)
    assert "runCount" in msgspec.to_builtins(copied)  # the paths a Case names
    assert record_key(FamilyAdmission) != record_key(Admission)
    ev = Evidence(tier="l3")
    ev.put(copied)
    assert ev.record(FamilyAdmission) == copied
    assert ev.record(Admission) is None  # found by the family's type, not the shared one


def test_a_schedule_is_one_object_of_named_settings() -> None:
    fields = set(RoutineSchedule.__struct_fields__)
    assert {"slug", "definition", "provider_url", "approver"} <= fields
    with pytest.raises(TypeError):  # by name only: no positional mix-up of 11 settings
        RoutineSchedule("slug", {}, "tool")  # type: ignore[call-arg]
