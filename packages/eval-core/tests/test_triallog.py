"""The trial log survives a torn last line and refuses to resume another Sweep."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval_core.triallog import LogHeader, ResumeRefused, TrialLog, check_resumable, read
from release_fixtures import HASH, trial

HEADER = LogHeader(corpus_hash=HASH, model_id="m1", selected=[], repeat=1, started_at="t")


def test_every_trial_is_readable_even_after_a_torn_write(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = TrialLog(path, HEADER)
    log.append(trial("a", "passed"))
    log.append(trial("b", "failed"))
    log.close()
    with path.open("ab") as handle:
        handle.write(b'{"caseId": "c", "tri')  # the process died mid-line
    header, trials = read(path)
    assert header == HEADER
    assert [(t.case_id, t.outcome) for t in trials] == [("a", "passed"), ("b", "failed")]


def test_a_garbled_middle_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = TrialLog(path, HEADER)
    log.append(trial("a", "passed"))
    log.close()
    with path.open("ab") as handle:
        handle.write(b"garbage\n")
    log = TrialLog(path, HEADER, append=True)
    log.append(trial("b", "passed"))
    log.close()
    with pytest.raises(ResumeRefused, match="line 3 is not a Trial record"):
        read(path)


def test_not_a_log(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("hello\n")
    with pytest.raises(ResumeRefused, match="not a trial log"):
        read(path)


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (("b" * 64, "m1", [], 1), "corpusHash"),
        ((HASH, "m2", [], 1), "model"),
        ((HASH, "m1", ["a"], 1), "selection"),
        ((HASH, "m1", [], 2), "--repeat"),
    ],
)
def test_resuming_another_sweep_is_refused(
    args: tuple[str, str, list[str], int], what: str
) -> None:
    with pytest.raises(ResumeRefused, match=what):
        check_resumable(HEADER, *args)
    check_resumable(HEADER, HASH, "m1", [], 1)
