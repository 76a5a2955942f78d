"""Baselines: the canonical path, the safe alphabet, and every refusal of a bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_release import baseline
from eval_release.baseline import BaselineError
from release_fixtures import scorecard, trial


def test_round_trip_at_the_canonical_path(tmp_path: Path) -> None:
    card = scorecard([trial("a", "passed")])
    path = baseline.canonical_path(tmp_path, "capability", "m1")
    assert path == tmp_path / "baselines" / "m1.json"
    assert (
        baseline.canonical_path(tmp_path, "red-team", "m1")
        == tmp_path / "baselines" / "red-team" / "m1.json"
    )
    baseline.write(path, card, "abc123")
    read = baseline.read(path)
    assert read.corpus_commit == "abc123"
    assert read.scorecard.corpus_hash == card.corpus_hash
    assert [p.name for p in path.parent.iterdir()] == ["m1.json"]  # no temp file left behind


@pytest.mark.parametrize("model", ["../evil", "a/b", "", "m 1", "m1;rm"])
def test_model_ids_are_restricted_to_a_safe_alphabet(tmp_path: Path, model: str) -> None:
    with pytest.raises(BaselineError, match="safe file name"):
        baseline.canonical_path(tmp_path, "capability", model)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "no Baseline here"),
        (b'{"schemaVersion": 1, "harnessVers', "corrupt or truncated"),
        (b'{"hello": "world"}', "no schemaVersion and scorecard"),
        (b'{"schemaVersion": 99, "scorecard": {}}', "Baseline schema 99"),
        (b'{"schemaVersion": 2, "scorecard": {"modelId": "m"}}', "lacks corpusHash"),
    ],
)
def test_bad_files_are_refused_with_a_reason(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    path = tmp_path / "m1.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(BaselineError, match=reason):
        baseline.read(path)
    if content is not None:
        assert path.read_bytes() == content  # never touched


def test_the_scorecard_keeps_counts_even_when_zero(tmp_path: Path) -> None:
    path = tmp_path / "m1.json"
    baseline.write(path, scorecard([trial("a", "failed")]), "abc")
    card = json.loads(path.read_text())["scorecard"]
    assert (card["passed"], card["failed"], card["errored"]) == (0, 1, 0)


def test_a_saved_scorecard_is_named_for_what_it_is(tmp_path: Path) -> None:
    from eval_core._running.scorecard import encode_json

    path = tmp_path / "card.json"
    path.write_bytes(encode_json(scorecard([trial("a", "passed")])))
    assert b'"schemaVersion"' in path.read_bytes()  # it has one: the old reason was wrong
    with pytest.raises(BaselineError) as caught:
        baseline.read(path)
    assert str(caught.value) == (
        f"{path} is a saved Scorecard, not a Baseline: promote one with --promote, or compare "
        "two Scorecards with eval compare"
    )


def test_a_corpus_other_than_the_projects_is_keyed_by_its_directory(tmp_path: Path) -> None:
    own, other = tmp_path / "corpus", tmp_path / "second"
    for corpus in (own, other, own / "red-team"):
        corpus.mkdir(parents=True)
    assert baseline.corpus_key(own, own) is None
    assert baseline.corpus_key(own / "red-team", own) is None  # its suite, not another Corpus
    assert baseline.corpus_key(other, own) == "second"
    folder = tmp_path / "baselines"
    assert baseline.canonical_in(folder, "capability", "m1", "second") == folder / "second/m1.json"
    assert baseline.canonical_in(folder, "red-team", "m1", "second") == (
        folder / "second/red-team/m1.json"
    )
    for name in ("red-team", "..", "a b"):
        with pytest.raises(baseline.BaselineError, match="cannot key its Baselines"):
            baseline.canonical_in(folder, "capability", "m1", name)


def test_a_baseline_of_more_trials_than_planned_is_refused_before_decoding(tmp_path: Path) -> None:
    """The gate's ``--baseline`` reads a Baseline the same way: counted first."""
    one = b'{"caseId":"c","trial":1,"outcome":"passed"}'
    card = (
        b'{"corpusHash":"'
        + b"a" * 64
        + b'","modelId":"m","trials":['
        + b",".join([one] * 100_001)
        + b"]}"
    )
    path = tmp_path / "m.json"
    path.write_bytes(
        b'{"schemaVersion":3,"corpusCommit":"c","savedAt":"t","scorecard":' + card + b"}"
    )
    with pytest.raises(baseline.BaselineError, match=r"\$\.scorecard\.trials: 100,001 Trials"):
        baseline.read(path)
