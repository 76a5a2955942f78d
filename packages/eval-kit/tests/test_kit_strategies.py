"""The test kit's strategies draw only values their types accept: a plug-in author's property
test fed a value msgspec would refuse fails on the kit, not on the plug-in."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core.kinds import Evidence
from eval_kit.strategies import evidence_strategy, strategy_for

Unit = Annotated[float, msgspec.Meta(ge=0.0, lt=1.0)]
Open = Annotated[float, msgspec.Meta(gt=-1.0, le=1.0)]
Count = Annotated[int, msgspec.Meta(gt=0, lt=5)]
Word = Annotated[str, msgspec.Meta(min_length=2, max_length=4)]


class Reading(msgspec.Struct, frozen=True):
    """A plug-in's record with every constrained scalar the kit honours."""

    share: Unit
    drift: Open
    count: Count
    word: Word
    tags: Annotated[list[Word], msgspec.Meta(min_length=1)]


def accepted(value: Any, kind: Any) -> bool:
    return msgspec.json.decode(msgspec.json.encode(value), type=kind) == value


@settings(max_examples=200)
@given(data=st.data())
def test_a_drawn_value_honours_every_bound_of_its_type(data: st.DataObject) -> None:
    for kind in (Unit, Open, Count, Word, Reading):
        value = data.draw(strategy_for(kind))
        assert accepted(value, kind), (kind, value)


@given(strategy_for(Annotated[float, msgspec.Meta(gt=0.0, lt=1e-300)]))
def test_an_open_bound_is_never_drawn(value: float) -> None:
    """Between 0 and 1e-300, both open: hypothesis draws a bound it is allowed to often."""
    assert 0.0 < value < 1e-300


@settings(max_examples=200)
@given(evidence=evidence_strategy())
def test_drawn_evidence_is_evidence_a_host_could_report(evidence: Evidence) -> None:
    """Every record of it decodes as its own type: a guard's stage is a stage, its guard a
    guard."""
    decoded = msgspec.json.decode(msgspec.json.encode(evidence), type=Evidence)
    assert [d.stage for d in decoded.guard_decisions or ()] == [
        d.stage for d in evidence.guard_decisions or ()
    ]
