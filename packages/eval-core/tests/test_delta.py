"""Deltas: every state, the refusals, and the partition property."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_core.delta import ComparisonRefused, compare, render
from eval_core.trial import Outcome
from release_fixtures import scorecard, trial


def test_every_state() -> None:
    before = scorecard(
        [
            trial("same-pass", "passed"),
            trial("same-fail", "failed"),
            trial("fixed", "failed"),
            trial("regressed", "passed"),
            trial("err", "errored"),
            trial("flappy", "passed", 1),
            trial("flappy", "failed", 2),
            trial("only-before", "passed"),
        ]
    )
    after = scorecard(
        [
            trial("same-pass", "passed"),
            trial("same-fail", "failed"),
            trial("fixed", "passed"),
            trial("regressed", "failed"),
            trial("err", "passed"),
            trial("flappy", "failed"),
        ]
    )
    delta = compare(before, after, "v1")
    states = {c.case_id: c.state for c in delta.cases}
    assert states == {
        "same-pass": "unchanged",
        "same-fail": "unchanged",
        "fixed": "fixed",
        "regressed": "regressed",
        "err": "not-comparable",
        "flappy": "no-signal",
        "only-before": "not-comparable",
    }
    assert delta.floor is True
    text = render(delta)
    assert "REGRESSED\n  regressed  PASS -> FAIL" in text
    assert "NO SIGNAL\n  flappy" in text
    assert "NOTE" not in text


def test_a_baseline_without_repeat_says_it_has_no_floor() -> None:
    card = scorecard([trial("a", "passed")])
    delta = compare(card, card)
    assert delta.floor is False
    assert "records no noise floor" in render(delta)


@pytest.mark.parametrize(
    ("other", "words"),
    [
        ({"corpus_hash": "b" * 64}, "different Corpora"),
        ({"model": "m2"}, "different models"),
    ],
)
def test_different_corpora_or_models_are_refused(other: dict[str, str], words: str) -> None:
    with pytest.raises(ComparisonRefused, match=words):
        compare(scorecard([trial("a", "passed")]), scorecard([trial("a", "passed")], **other))


OUTCOMES: list[Outcome] = ["passed", "failed", "errored", "unexercised"]
SIDE = st.dictionaries(
    st.sampled_from([f"c{i}" for i in range(8)]),
    st.lists(st.sampled_from(OUTCOMES), min_size=1, max_size=3),
    max_size=8,
)


@given(before=SIDE, after=SIDE)
def test_states_partition_the_union_and_swapping_swaps_fixed_and_regressed(
    before: dict[str, list[Outcome]], after: dict[str, list[Outcome]]
) -> None:
    def card(side: dict[str, list[Outcome]]) -> object:
        return scorecard(trial(c, o, n) for c, runs in side.items() for n, o in enumerate(runs, 1))

    a, b = card(before), card(after)
    forward = compare(a, b)  # type: ignore[arg-type]
    backward = compare(b, a)  # type: ignore[arg-type]
    ids = [c.case_id for c in forward.cases]
    assert sorted(ids) == sorted(before.keys() | after.keys())
    assert len(ids) == len(set(ids))
    by_state = {
        s: {c.case_id for c in forward.of(s)}
        for s in ("unchanged", "fixed", "regressed", "no-signal", "not-comparable")
    }
    assert set().union(*by_state.values()) == set(ids)
    assert {c.case_id for c in backward.of("fixed")} == by_state["regressed"]
    assert {c.case_id for c in backward.of("regressed")} == by_state["fixed"]
