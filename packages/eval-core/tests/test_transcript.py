"""Transcripts as the trial log writes them: every Trial's Evidence recorded beside it, stored
once, scrubbed of credentials, made safe, large parts capped and marked, never written through a
link or into a pipe. Reading them back is eval-report's (its test_transcripts.py)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from eval_core._case.evidence import (
    Evidence,
)
from eval_core._recording.log_records import ResumeRefused, read
from eval_core._recording.transcript import MAX_CHARS, pack_path
from eval_core._recording.triallog import TrialLog
from eval_core._util.redaction import Redactor
from release_fixtures import trial
from transcript_fixtures import EXPECT, HEADER, KEY, evidence


def logged(tmp_path: Path, *entries: tuple[str, Evidence | None]) -> Path:
    path = tmp_path / "log.jsonl"
    log = TrialLog.create(path, HEADER, Redactor([KEY]).scrub_bytes)
    for number, (case_id, seen) in enumerate(entries, start=1):
        log.append(trial(case_id, "passed", number), EXPECT, seen)
    log.close()
    return path


def lines(path: Path) -> list[Any]:
    """Every line of ``path``'s side file, as plain JSON (no reader: the bytes written)."""
    return [msgspec.json.decode(line) for line in pack_path(path).read_bytes().splitlines()]


def stored(path: Path) -> dict[str, Any]:
    """The one transcript in ``path``'s side file (its other lines are prompts)."""
    (value,) = [line for line in lines(path) if isinstance(line, dict)]
    return value


def test_an_identical_transcript_is_stored_once(tmp_path: Path) -> None:
    path = logged(tmp_path, ("a", evidence()), ("a", evidence()), ("c", None))
    pointers = read(path).pointers
    assert pointers is not None
    assert pointers[0] == pointers[1] and pointers[2] is None
    assert lines(path) == ["You are Support.", stored(path)]  # its prompt, then the transcript


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_a_side_file_that_is_a_link_or_a_pipe_is_refused_on_resume(
    tmp_path: Path, kind: str
) -> None:
    path = logged(tmp_path, ("a", evidence()))
    side = pack_path(path)
    side.unlink()
    if kind == "symlink":
        side.symlink_to(tmp_path / "elsewhere")
    else:
        os.mkfifo(side)
    with pytest.raises(ResumeRefused, match="cannot append its transcripts"):
        TrialLog.resume(path, read(path))
    assert not (tmp_path / "elsewhere").exists()


def test_credentials_are_redacted_and_text_made_safe_before_it_is_written(tmp_path: Path) -> None:
    echoed = f"Your key is {KEY}.\x1b[2J\ud800 done"
    path = logged(tmp_path, ("a", evidence(echoed)))
    assert KEY.encode() not in pack_path(path).read_bytes()
    text = stored(path)["evidence"]["output_text"]
    assert text == "Your key is [credential redacted].␛[2J\ufffd done"


def test_a_very_large_part_is_capped_and_says_so(tmp_path: Path) -> None:
    huge = "x" * (MAX_CHARS + 10)
    written = stored(logged(tmp_path, ("a", evidence(huge))))
    assert written["capped"] == [
        {"path": "$.evidence.output_text", "size": MAX_CHARS + 10, "kept": MAX_CHARS}
    ]
    assert written["evidence"]["output_text"].endswith(f"the first {MAX_CHARS} kept]")


def test_the_prompt_repeated_by_each_request_is_written_once(tmp_path: Path) -> None:
    path = logged(tmp_path, ("a", evidence()))
    written = stored(path)
    assert written["systemShared"] == [0]  # the reader puts it back
    assert written["evidence"]["model_requests"][0]["system"] == ""
    assert pack_path(path).read_bytes().count(b"You are Support.") == 1


def test_the_prompt_of_every_trial_is_a_line_of_its_own_written_once(tmp_path: Path) -> None:
    path = logged(tmp_path, ("a", evidence()), ("b", evidence("Still packing.")))
    prompt, first, second = lines(path)
    assert prompt == "You are Support."
    named = hashlib.sha256(b'"You are Support."').hexdigest()  # by content, never by place
    assert first["prompt"] == second["prompt"] == named
    assert first["evidence"]["system_prompt"] is None  # the reader reads it from the pointer
    assert pack_path(path).read_bytes().count(b"You are Support.") == 1


def test_a_prompt_that_is_not_safe_as_it_is_stays_in_its_transcript(tmp_path: Path) -> None:
    unsafe = evidence()
    unsafe.system_prompt = f"You are Support.\x1b[2J Key: {KEY}"
    path = logged(tmp_path, ("a", unsafe))
    written = stored(path)
    assert "prompt" not in written and len(lines(path)) == 1
    assert written["evidence"]["system_prompt"] == "You are Support.␛[2J Key: [credential redacted]"


def test_a_prompt_stored_apart_is_scrubbed_like_its_transcript(tmp_path: Path) -> None:
    keyed = evidence()
    keyed.system_prompt = f"You are Support. Key: {KEY}"
    path = logged(tmp_path, ("a", keyed))
    assert lines(path)[0] == "You are Support. Key: [credential redacted]"
    assert KEY.encode() not in pack_path(path).read_bytes()
