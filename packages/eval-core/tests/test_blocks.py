"""eval_core._case.blocks: the scorer building blocks, through the public API."""

from __future__ import annotations

from functools import partial
from typing import Any

import msgspec
import pytest

from eval_core.kinds import (
    BLOCK,
    DOT_PATH,
    L2,
    L3,
    NON_EMPTY,
    PATH,
    REASON,
    TEXT,
    Claim,
    Evidence,
    Expectation,
    KindSpec,
    Rule,
    Verdict,
    absent,
    first_equal,
    minimum,
    need,
    passed,
    present,
    properties,
    rules,
    scorer,
    values_at,
)
from eval_kit import assert_kind_conforms


class Called(Expectation, tag="blocks_called", frozen=True):
    name: str


@scorer
def score_called(e: Called, ev: Evidence) -> Verdict:
    calls = need(ev.tool_calls, f"tool calls not observed; cannot tell whether {e.name} was")
    hit = next((f"{e.name} was called" for c in calls if c.name == e.name), None)
    return present(hit, f"{e.name} was not called")


def test_need_stops_the_scorer_with_its_reason() -> None:
    verdict = score_called(Called(name="t"), Evidence(tier="l2"))
    assert verdict == Verdict(False, "tool calls not observed; cannot tell whether t was")


def test_need_takes_an_empty_observation_as_one() -> None:
    assert need([], "never") == []
    assert score_called(Called(name="t"), Evidence(tier="l2", tool_calls=[])) == Verdict(
        False, "t was not called"
    )


def test_scorer_keeps_the_function_and_passes_its_verdict_through() -> None:
    assert score_called.__name__ == "score_called"
    assert scorer(lambda: passed("fine"))() == passed("fine")


def test_scorer_lets_a_real_bug_raise() -> None:
    @scorer
    def broken(_e: object, _ev: object) -> Verdict:
        raise KeyError("bug")

    with pytest.raises(KeyError):
        broken(None, None)


def test_a_scorer_built_from_the_blocks_keeps_the_contract() -> None:
    assert_kind_conforms(KindSpec(struct=Called, scorer=score_called, witness="tool"))


def test_present_and_absent_mirror_each_other() -> None:
    assert present("found it", "missing") == Verdict(True, "found it")
    assert present(None, "missing") == Verdict(False, "missing")
    assert absent("found it", "left out") == Verdict(False, "found it")
    assert absent(None, "left out") == Verdict(True, "left out")


RECORDS: list[dict[str, Any]] = [
    {"id": "a", "args": {"x": 1}},
    {"id": "b", "args": {"x": 2.0, "y": [1]}},
    {"id": "c", "args": None},
]


def test_first_equal_finds_the_first_deep_equal_value() -> None:
    assert first_equal(RECORDS, lambda r: r["args"], "x", 2) == (RECORDS[1], 2.0)
    assert first_equal(RECORDS, lambda r: r["args"], "y.0", 1) == (RECORDS[1], 1)
    assert first_equal(RECORDS, lambda r: r["args"], "x", True) is None
    assert first_equal([], lambda r: r, "x", 1) is None


def test_values_at_shows_each_value_or_missing() -> None:
    assert values_at(RECORDS, lambda r: r["args"], "x", lambda r: r["id"]) == [
        "a: 1",
        "b: 2.0",
        "c: (missing)",
    ]


class Shaped(Expectation, tag="blocks_shaped", frozen=True):
    name: str
    argument_path: str
    count: int
    turn_index: int | None = None
    ungrounded: str | None = None


SHAPED = rules(
    name=TEXT,
    argument_path=PATH,
    count=minimum(0),
    turn_index=minimum(1, "Turns count from 1"),
    ungrounded=REASON,
)


def test_rules_say_the_schema_as_properties_would() -> None:
    assert SHAPED["json_schema"] == properties(
        name=NON_EMPTY,
        argumentPath=DOT_PATH,
        count={"minimum": 0},
        turnIndex={"minimum": 1},
        ungrounded=NON_EMPTY,
    )


def test_rules_check_each_field_in_order_with_json_paths() -> None:
    bad = Shaped(name=" ", argument_path="a..b", count=-1, turn_index=0, ungrounded=" ")
    problems = SHAPED["check"](bad, None)
    assert [suffix for suffix, _ in problems] == [
        ".name",
        ".argumentPath",
        ".count",
        ".turnIndex",
        ".ungrounded",
    ]
    assert problems[0] == (".name", "must be a non-empty string")
    assert problems[2] == (".count", "must be an integer ≥ 0")
    assert problems[3] == (".turnIndex", "must be an integer ≥ 1 (Turns count from 1)")
    assert problems[4] == (".ungrounded", "when present, must be a non-empty reason")


def test_rules_let_an_optional_field_out() -> None:
    assert SHAPED["check"](Shaped(name="t", argument_path="a.b", count=0), None) == []


def test_a_rule_of_a_family_s_own_composes() -> None:
    upper = Rule({"pattern": "^[A-Z]+$"}, lambda v, at: [] if v.isupper() else [(at, "shout")])
    made = rules(name=upper)
    assert made["json_schema"] == {"properties": {"name": {"pattern": "^[A-Z]+$"}}}
    assert made["check"](Called(name="quiet"), None) == [(".name", "shout")]


def test_rules_fill_a_kindspec() -> None:
    spec = KindSpec(struct=Shaped, scorer=lambda e, ev: passed("ok"), witness="tool", **SHAPED)
    assert spec.check is SHAPED["check"]
    assert spec.json_schema == SHAPED["json_schema"]


def test_one_scorer_serves_a_kind_and_its_mirror() -> None:
    @scorer
    def score(claim: Claim, e: Called, ev: Evidence) -> Verdict:
        calls = need(ev.tool_calls, "tool calls not observed")
        hit = f"{e.name} was called" if any(c.name == e.name for c in calls) else None
        return claim(hit, f"{e.name} was not called")

    ev = Evidence(tier="l2", tool_calls=[])
    assert partial(score, present)(Called(name="t"), ev) == Verdict(False, "t was not called")
    assert partial(score, absent)(Called(name="t"), ev) == Verdict(True, "t was not called")
    assert partial(score, absent)(Called(name="t"), Evidence(tier="l2")).detail == (
        "tool calls not observed"
    )


def test_block_is_the_case_s_own_struct_options() -> None:
    class Tickets(msgspec.Struct, **BLOCK):
        file_id: str
        limit: int = 1

    assert msgspec.json.encode(Tickets(file_id="f")) == b'{"fileId":"f"}'
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"fileId": "f", "other": 1}', type=Tickets)
    with pytest.raises(TypeError):
        Tickets("f")
    with pytest.raises(TypeError):
        BLOCK["frozen"] = False  # type: ignore[index]


@pytest.mark.parametrize(("tiers", "tier"), [(L2, "l2"), (L3, "l3")])
def test_a_tier_set_names_its_one_tier(tiers: frozenset[str], tier: str) -> None:
    assert sorted(tiers) == [tier]
