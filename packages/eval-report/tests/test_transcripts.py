"""Transcripts read back: what the core's trial log wrote beside it (scrubbed of credentials,
made safe, large parts capped and marked, repeats stored once) reads back whole and by type, and
is refused (naming it) when it cannot be decoded faithfully."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import (
    Evidence,
    Testimony,
    Usage,
    record_key,
)
from eval_core._recording import transcript
from eval_core._recording.log_records import read
from eval_core._recording.transcript import MAX_CHARS, Pointer, pack_path
from eval_core._recording.triallog import TrialLog
from eval_core._util.redaction import Redactor
from eval_report import transcripts
from eval_report.transcripts import Reader, TranscriptRefused
from release_fixtures import trial
from transcript_fixtures import EXPECT, HEADER, KEY, evidence

TYPES = transcripts.record_types(())  # eval_core's own types only


def logged(tmp_path: Path, *entries: tuple[str, Evidence | None]) -> tuple[Path, Reader]:
    path = tmp_path / "log.jsonl"
    log = TrialLog.create(path, HEADER, Redactor([KEY]).scrub_bytes)
    for number, (case_id, seen) in enumerate(entries, start=1):
        log.append(trial(case_id, "passed", number), EXPECT, seen)
    log.close()
    return path, Reader(pack_path(path))


def test_every_trial_points_at_its_transcript_and_it_reads_back_by_type(tmp_path: Path) -> None:
    path, reader = logged(tmp_path, ("a", evidence()), ("b", evidence("Still packing.")))
    log = read(path)
    assert log.header.transcripts == transcript.FORMAT
    assert log.pointers is not None and all(p is not None for p in log.pointers)
    first = reader.get(log.pointers[0])  # type: ignore[arg-type]
    assert first.expect == EXPECT
    assert first.evidence.tool_calls == evidence().tool_calls
    again = transcripts.typed(first, TYPES)
    assert again.record(Usage) == Usage(input_tokens=7)  # decoded back into its own type
    assert first.record_schemas == {record_key(Usage): transcript.schema_hash(Usage)}
    assert reader.get(log.pointers[1]).evidence.output_text == "Still packing."  # type: ignore[arg-type]
    assert first.evidence.model_requests == evidence().model_requests  # the prompt restored
    assert first.evidence.system_prompt == "You are Support." and first.prompt is None
    assert pack_path(path).read_bytes().count(b"You are Support.") == 1  # once per side file
    lines = path.read_bytes().count(b"\n")
    assert lines == 3  # the log stays one small line per Trial; Evidence lives beside it


def test_the_runtimes_testimony_of_the_prompt_is_stored_once_and_restored(
    tmp_path: Path,
) -> None:
    said = evidence()
    said.testimony = Testimony(system_prompt="You are Support.", model_calls=1)
    other = evidence("Still packing.")
    other.testimony = Testimony(system_prompt="You are someone else.", model_calls=1)
    path, reader = logged(tmp_path, ("a", said), ("b", other))
    pointers = read(path).pointers
    assert pointers is not None and pointers[0] is not None and pointers[1] is not None
    assert reader.get(pointers[0]).evidence.testimony == said.testimony
    assert reader.get(pointers[1]).evidence.testimony == other.testimony  # a differing one kept
    assert pack_path(path).read_bytes().count(b"You are Support.") == 1  # once per side file
    assert pack_path(path).read_bytes().count(b"You are someone else.") == 1


def test_credentials_are_redacted_and_text_made_safe(tmp_path: Path) -> None:
    echoed = f"Your key is {KEY}.\x1b[2J\ud800 done"
    path, reader = logged(tmp_path, ("a", evidence(echoed)))
    stored = pack_path(path).read_bytes()
    assert KEY.encode() not in stored
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    text = reader.get(pointer).evidence.output_text
    assert text == "Your key is [credential redacted].␛[2J\ufffd done"


def test_a_very_large_part_is_capped_and_says_so(tmp_path: Path) -> None:
    huge = "x" * (MAX_CHARS + 10)
    path, reader = logged(tmp_path, ("a", evidence(huge)))
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    stored = reader.get(pointer)
    assert [(c.path, c.size, c.kept) for c in stored.capped] == [
        ("$.evidence.output_text", MAX_CHARS + 10, MAX_CHARS)
    ]
    assert stored.evidence.output_text is not None
    assert stored.evidence.output_text.endswith(f"the first {MAX_CHARS} kept]")


def test_a_changed_or_foreign_record_is_refused_naming_it(tmp_path: Path) -> None:
    path, reader = logged(tmp_path, ("a", evidence()))
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    stale = reader.get(pointer)
    stale.record_schemas[record_key(Usage)] = "0123456789abcdef"
    with pytest.raises(
        TranscriptRefused, match=r"eval_core\._case\.evidence:Usage was recorded by an"
    ):
        transcripts.typed(stale, TYPES)
    foreign = reader.get(pointer)
    foreign.evidence.records = {"os:system": {}}  # a log never names code for us to import
    with pytest.raises(TranscriptRefused, match="record os:system: its type is not installed"):
        transcripts.typed(foreign, TYPES)


def test_a_changed_side_file_or_format_is_refused(tmp_path: Path) -> None:
    path, _ = logged(tmp_path, ("a", evidence()))
    pack = pack_path(path)
    pack.write_bytes(pack.read_bytes().replace(b"shipped", b"SHIPPED"))
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    with pytest.raises(TranscriptRefused, match="does not match its SHA-256"):
        Reader(pack).get(pointer)
    with pytest.raises(
        TranscriptRefused, match="transcript format 99, and this harness reads 1, 2, 3"
    ):
        transcripts.decode(b'{"format": 99, "expect": [], "evidence": {"tier": "l2"}}', "x")


def test_a_changed_prompt_line_is_refused(tmp_path: Path) -> None:
    path, _ = logged(tmp_path, ("a", evidence()))
    pack = pack_path(path)
    pack.write_bytes(pack.read_bytes().replace(b'"You are Support."', b'"You are Sales!!."', 1))
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    with pytest.raises(TranscriptRefused, match="no prompt line has the SHA-256"):
        Reader(pack).get(pointer)


def test_a_prompt_stored_apart_is_read_from_its_side_file_only(tmp_path: Path) -> None:
    path, reader = logged(tmp_path, ("a", evidence()))
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    data = reader.raw(pointer)
    with pytest.raises(TranscriptRefused, match="its prompt is stored apart in its side file"):
        transcripts.decode(data, "x")
    with pytest.raises(TranscriptRefused, match=r"its prompt \(SHA-256 \w+\) is not a JSON str"):
        transcripts.decode(data, "x", lambda _: b'{"not": "a prompt"}')


def test_a_transcript_is_the_same_bytes_wherever_its_prompt_landed(tmp_path: Path) -> None:
    """Trials finish in any order (threads, an executor's workers): the line a prompt landed
    on is not part of the transcripts that name it."""
    first, _ = logged(tmp_path / "one", ("a", evidence()), ("b", evidence("Still packing.")))
    other = evidence("Still packing.")
    other.system_prompt = "You are Billing."
    second, _ = logged(tmp_path / "two", ("c", other), ("b", evidence("Still packing.")))
    one, two = read(first).pointers, read(second).pointers
    assert one is not None and two is not None and one[1] is not None and two[1] is not None
    assert one[1].at != two[1].at and one[1].sha256 == two[1].sha256


def test_a_resumed_log_stores_its_prompt_again_and_every_trial_reads_back(
    tmp_path: Path,
) -> None:
    path, _ = logged(tmp_path, ("a", evidence()))
    log = TrialLog.resume(path, read(path), Redactor([KEY]).scrub_bytes)
    log.append(trial("b", "passed", 2), EXPECT, evidence("Still packing."))
    log.close()
    reader = Reader(pack_path(path))
    pointers = read(path).pointers
    assert pointers is not None and None not in pointers
    assert [reader.get(p).evidence.system_prompt for p in pointers if p is not None] == [
        "You are Support.",
        "You are Support.",
    ]


def test_older_formats_still_read_and_a_new_one_says_it_is_3(tmp_path: Path) -> None:
    """Format 2 stores the offered Tools and the testimony's prompt once, format 3 the Trial's
    prompt once per side file: a harness that reads only the older ones must refuse it rather
    than read half of it; what they wrote still reads."""
    for old_format in (1, 2):
        data = b'{"format": %d, "expect": [], "evidence": {"tier": "l2"}}' % old_format
        old = transcripts.decode(data, "x")
        assert old.format == old_format and old.evidence.tier == "l2"
    path, _ = logged(tmp_path, ("a", evidence()))
    pointer = read(path).pointers[0]  # type: ignore[index]
    assert pointer is not None
    assert Reader(pack_path(path)).get(pointer).format == transcript.FORMAT == 3


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.binary(max_size=400) | st.text(max_size=200).map(str.encode))
def test_a_side_file_of_any_content_is_read_or_refused_never_raises(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    """A transcript whose bytes match its pointer (so the checksum passes) but hold anything."""
    side = tmp_path_factory.mktemp("side") / "log.jsonl.transcripts"
    side.write_bytes(data + b"\n")
    pointer = Pointer(sha256=hashlib.sha256(data).hexdigest(), at=0, size=len(data))
    try:
        stored = Reader(side).get(pointer)
        transcripts.typed(stored, TYPES)
    except TranscriptRefused as refused:
        assert str(refused).startswith(str(side))
