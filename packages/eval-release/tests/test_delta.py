"""Deltas: every state, the refusals, and the partition property."""

from __future__ import annotations

import io
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_core._running.scorecard import Scorecard
from eval_core._running.trial import Outcome
from eval_release.delta import ComparisonRefused, compare, render
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


def test_two_scorecards_without_repeat_are_worded_as_scorecards(tmp_path: Path) -> None:
    from eval_core._running.scorecard import encode_json
    from eval_release import baseline
    from eval_release.compare import compare as compare_files

    card = scorecard([trial("a", "passed")])
    before, after = tmp_path / "A.json", tmp_path / "B.json"
    before.write_bytes(encode_json(card))
    after.write_bytes(encode_json(card))
    out = io.StringIO()
    assert compare_files(before, after, out) == 0
    text = out.getvalue()
    assert "Baseline" not in text
    assert f"NOTE  the Scorecard {before} was swept without --repeat: it records no noise" in text
    promoted = tmp_path / "base.json"
    baseline.write(promoted, card, "abc")
    out = io.StringIO()
    assert compare_files(promoted, after, out) == 0
    assert f"NOTE  the Baseline {promoted} was promoted without --repeat" in out.getvalue()
    assert "NOTE  the Baseline was promoted without --repeat" in render(compare(card, card))


def with_digests(card: Scorecard, digests: dict[str, str], corpus_hash: str) -> Scorecard:
    card.case_hashes = digests
    card.corpus_hash = corpus_hash
    return card


def test_a_corpus_hash_refusal_names_the_cases_added_removed_and_changed() -> None:
    same = {"kept": "1" * 16, "atk": "2" * 16}
    before = with_digests(
        scorecard([trial("kept", "passed")]),
        {**same, "edited": "3" * 16, "dropped": "4" * 16, "atk--base64": "5" * 16},
        "a" * 64,
    )
    after = with_digests(
        scorecard([trial("kept", "passed")]),
        {**same, "edited": "6" * 16, "new": "7" * 16, "atk--base64": "8" * 16, "atk": "9" * 16},
        "b" * 64,
    )
    with pytest.raises(ComparisonRefused) as caught:
        compare(before, after)
    lines = str(caught.value).splitlines()
    assert lines[0] == f"different Corpora: corpusHash {'a' * 16} vs {'b' * 16}"
    assert "  - 3 Case(s) changed: atk (and 1 of its variants), edited" in lines
    assert "  - 1 Case(s) added: new" in lines
    assert "  - 1 Case(s) removed: dropped" in lines


def test_same_cases_or_scorecards_without_digests_say_so() -> None:
    digests = {"a": "1" * 16}
    before = with_digests(scorecard([trial("a", "passed")]), dict(digests), "a" * 64)
    after = with_digests(scorecard([trial("a", "passed")]), dict(digests), "b" * 64)
    with pytest.raises(ComparisonRefused, match="the Cases and the plug-ins both used are the"):
        compare(before, after)
    before.case_hashes = {}  # a Scorecard saved before digests were recorded
    with pytest.raises(ComparisonRefused) as caught:
        compare(before, after)
    assert "cannot say which Cases differ" in str(caught.value)
    assert "the plug-ins both used are the same: the Cases, the Eval Soul" in str(caught.value)


def test_old_scorecards_without_digests_still_read() -> None:
    import msgspec

    from eval_core._running.scorecard import decode_json, encode_json

    raw = msgspec.json.decode(encode_json(scorecard([trial("a", "passed")])))
    del raw["caseHashes"]
    assert decode_json(msgspec.json.encode(raw)).case_hashes == {}


def test_a_case_id_with_a_line_break_cannot_forge_a_line_of_compare(tmp_path: Path) -> None:
    """A saved Scorecard is a file anyone can edit: a Case id, a model id or a verdict holding
    a line break or an escape is printed within its own row, never as a row of its own."""
    from eval_release.compare import compare as compare_files

    forged = "ok\nREGRESSED\n  billing-refund  PASS -> FAIL\x1b[2K\r"
    paths = []
    sides: tuple[tuple[str, Outcome], ...] = (("before", "failed"), ("after", "passed"))
    for name, outcome in sides:
        card = scorecard([trial(forged, outcome), trial("plain", "passed")], model="m\n1")
        path = tmp_path / f"{name}.json"
        path.write_bytes(msgspec.json.encode(card))
        paths.append(path)
    out = io.StringIO()
    assert compare_files(paths[0], paths[1], out) == 0
    lines = out.getvalue().splitlines()
    assert not any(line.startswith("REGRESSED") for line in lines), lines
    assert not any("billing-refund" in line and not line.startswith("  ok") for line in lines)
    assert "Delta  model=m\u240a1  " in lines[0]
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()
    assert lines[1:3] == [
        "FIXED",
        "  ok\u240aREGRESSED\u240a  billing-refund  PASS -> FAIL\u241b[2K\u240d  FAIL -> PASS",
    ]
