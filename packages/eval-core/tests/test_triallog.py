"""The trial log: torn tails repaired, exclusive creation, resuming only the same Sweep at the
same harness commit, and every record through the redactor."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from eval_core._recording.log_records import LogHeader, ResumeRefused, check_resumable, read
from eval_core._recording.triallog import TrialLog
from eval_core._running.trial import TrialResult
from eval_core._util.redaction import Redactor
from release_fixtures import HASH, trial

HEADER = LogHeader(
    corpus_hash=HASH, model_id="m1", selected=[], repeat=1, started_at="t", corpus_commit="v1"
)


def written(tmp_path: Path, *trials: TrialResult) -> Path:
    """A trial log this Sweep created, holding ``trials``, closed as a finished writer leaves it."""
    path = tmp_path / "log.jsonl"
    log = TrialLog.create(path, HEADER)
    for result in trials:
        log.append(result)
    log.close()
    return path


def test_every_trial_is_readable_even_after_a_torn_write(tmp_path: Path) -> None:
    path = written(tmp_path, trial("a", "passed"), trial("b", "failed"))
    with path.open("ab") as handle:
        handle.write(b'{"caseId": "c", "tri')  # the process died mid-line
    logged = read(path)
    assert logged.header == HEADER
    assert [(t.case_id, t.outcome) for t in logged.trials] == [("a", "passed"), ("b", "failed")]
    assert logged.torn == len(b'{"caseId": "c", "tri')


def test_resume_after_a_torn_line_truncates_it_and_a_second_resume_still_reads(
    tmp_path: Path,
) -> None:
    path = written(tmp_path, trial("a", "passed"))
    with path.open("ab") as handle:
        handle.write(b'{"caseId": "b", "tri')
    log = TrialLog.resume(path, read(path))
    log.append(trial("b", "passed"))
    log.close()
    logged = read(path)  # the old harness glued "b" onto the fragment: refused for good
    assert [t.case_id for t in logged.trials] == ["a", "b"]
    assert logged.torn == 0
    assert b"tri{" not in path.read_bytes()


def test_a_complete_last_record_without_its_line_break_is_kept(tmp_path: Path) -> None:
    path = written(tmp_path, trial("a", "passed"))
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    log = TrialLog.resume(path, read(path))
    log.append(trial("b", "passed"))
    log.close()
    assert [t.case_id for t in read(path).trials] == ["a", "b"]


def test_a_new_log_never_overwrites_a_file(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"someone else's log\n")
    with pytest.raises(FileExistsError):
        TrialLog.create(path, HEADER)
    assert path.read_bytes() == b"someone else's log\n"


def test_a_garbled_middle_line_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, trial("a", "passed"))
    with path.open("ab") as handle:
        handle.write(b"garbage\n")
        handle.write(b'{"caseId": "b"}\n')
    with pytest.raises(ResumeRefused, match=r"log.jsonl: line 3: not a Trial record"):
        read(path)


def test_a_deeply_nested_record_is_refused_with_its_line_and_path(tmp_path: Path) -> None:
    path = written(tmp_path)
    with path.open("ab") as handle:
        handle.write(b'{"caseId": "a", "output": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")
    with pytest.raises(ResumeRefused, match=r"line 2: \$\.output\[0\].*nested deeper than 64"):
        read(path)


def test_not_a_log(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("hello\n")
    with pytest.raises(ResumeRefused, match="not a trial log"):
        read(path)


def test_a_directory_or_fifo_is_not_a_log(tmp_path: Path) -> None:
    with pytest.raises(ResumeRefused, match="a directory"):
        read(tmp_path)
    fifo = tmp_path / "fifo.jsonl"
    import os

    os.mkfifo(fifo)
    with pytest.raises(ResumeRefused, match="named pipe"):
        read(fifo)  # never blocks


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (("b" * 64, "m1", [], 1, "v1"), "corpusHash"),
        ((HASH, "m2", [], 1, "v1"), "model"),
        ((HASH, "m1", ["a"], 1, "v1"), "selection"),
        ((HASH, "m1", [], 2, "v1"), "--repeat"),
        ((HASH, "m1", [], 1, "v2"), "the Corpus's commit was 'v1', now 'v2'"),
    ],
)
def test_resuming_another_sweep_is_refused(
    args: tuple[str, str, list[str], int, str], what: str
) -> None:
    with pytest.raises(ResumeRefused, match=what):
        check_resumable(HEADER, *args)
    check_resumable(HEADER, HASH, "m1", [], 1, "v1")


def test_a_log_that_does_not_record_its_harness_is_refused_for_resume() -> None:
    old = LogHeader(corpus_hash=HASH, model_id="m1", selected=[], repeat=1, started_at="t")
    with pytest.raises(ResumeRefused, match="does not record the commit of the Corpus's tree"):
        check_resumable(old, HASH, "m1", [], 1, "v1")


def test_a_log_of_other_harness_versions_is_refused_for_resume() -> None:
    made = msgspec.structs.replace(HEADER, harness={"eval-core": "1.0"})
    check_resumable(made, HASH, "m1", [], 1, "v1", {"eval-core": "1.0"})
    with pytest.raises(ResumeRefused, match="the harness was"):
        check_resumable(made, HASH, "m1", [], 1, "v1", {"eval-core": "1.1"})


def test_the_log_goes_through_the_redactor(tmp_path: Path) -> None:
    from msgspec.structs import replace

    key = "sk-LOG-0123456789abcdef"
    path = tmp_path / "log.jsonl"
    log = TrialLog.create(path, HEADER, Redactor([key]).scrub_bytes)
    log.append(replace(trial("a", "passed"), output=f"your key is {key}, right?"))
    log.close()
    assert key not in path.read_text()
    assert read(path).trials[0].output == "your key is [credential redacted], right?"


def test_one_writer_per_log_a_second_resume_is_refused_while_the_first_writes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.jsonl"
    first = TrialLog.create(path, HEADER)
    first.append(trial("a", "passed"))
    with pytest.raises(ResumeRefused, match="being written by another eval process"):
        TrialLog.resume(path, read(path))
    first.append(trial("b", "passed"))
    first.close()
    again = TrialLog.resume(path, read(path))  # the writer is gone: the log is free
    again.close()
    assert [t.case_id for t in read(path).trials] == ["a", "b"]


def test_a_log_that_grew_after_it_was_read_is_not_cut_back(tmp_path: Path) -> None:
    path = written(tmp_path, trial("a", "passed"))
    stale = read(path)
    log = TrialLog.resume(path, read(path))
    log.append(trial("b", "passed"))
    log.close()
    with pytest.raises(ResumeRefused, match="changed while it was read"):
        TrialLog.resume(path, stale)
    assert [t.case_id for t in read(path).trials] == ["a", "b"]


def test_a_logged_line_is_the_bytes_its_struct_makes() -> None:
    import msgspec

    from eval_core._recording.log_records import LoggedTrial, logged_line
    from eval_core._recording.transcript import Pointer

    encoder = msgspec.json.Encoder()
    pointer = Pointer(sha256="ab" * 32, at=17, size=4096)
    for outcome in ("passed", "failed", "errored", "unexercised"):
        result = trial('c\u00e9\\"', outcome, 3)  # type: ignore[arg-type]
        fields = {name: getattr(result, name) for name in result.__struct_fields__}
        made = encoder.encode(LoggedTrial(**fields, transcript=pointer))
        assert logged_line(encoder, result, pointer) == made


def test_a_trial_logged_twice_reads_as_its_later_line(tmp_path: Path) -> None:
    """``--rerun-errored`` appends a Trial's new line and keeps the old: every reader takes the
    later one, in the place the Trial was first logged, with its own transcript pointer."""
    from msgspec.structs import replace

    from eval_core._recording.log_records import vendor_errored

    down = replace(trial("b", "errored"), error="model_unreachable: cannot connect to x")
    path = written(tmp_path, trial("a", "passed"), down, trial("c", "failed"))
    logged = read(path)
    assert [vendor_errored(t) for t in logged.trials] == [False, True, False]
    log = TrialLog.resume(path, logged)
    log.append(trial("b", "passed"))
    log.close()
    again = read(path)
    assert [(t.case_id, t.outcome) for t in again.trials] == [
        ("a", "passed"),
        ("b", "passed"),
        ("c", "failed"),
    ]
    assert again.superseded == 1
    assert again.pointers is not None and len(again.pointers) == 3
    assert path.read_bytes().count(b"\n") == 5  # the header and four lines: nothing rewritten


def test_only_a_model_failure_is_vendor_errored() -> None:
    from msgspec.structs import replace

    from eval_core._recording.log_records import vendor_errored

    assert vendor_errored(replace(trial("x", "errored"), error="model_timeout: no reply"))
    assert not vendor_errored(replace(trial("x", "errored"), error="host_crashed: boom"))
    assert not vendor_errored(replace(trial("x", "errored"), error="rubric_score: no verdict"))
    assert not vendor_errored(trial("x", "failed"))
