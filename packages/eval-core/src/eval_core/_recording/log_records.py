"""A trial log's records, and reading a log back: its header, the last line of each Trial, and
whether it may resume a Sweep (the log itself, written as the Trials finish:
:mod:`eval_core._recording.triallog`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from eval_core._recording.transcript import Pointer
from eval_core._running.scorecard import encoded
from eval_core._running.trial import TrialResult
from eval_core._util.input_files import (
    MAX_RECORD_BYTES,
    NotReadable,
    count_lines,
    read_head,
    read_regular,
)
from eval_core._util.limits import MAX_PLANNED_TRIALS, TooDeep, check_json_depth

HEAD_BYTES = 1 << 20
"""A trial log's header line is read from at most this much of its start."""
MOST_LINES = 2 * MAX_PLANNED_TRIALS + 1
"""A header and every planned Trial twice (a Trial errored, then run again on resume)."""


class LogHeader(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    kind: str = "sweep"
    corpus_hash: str
    model_id: str
    selected: list[str]
    repeat: int
    started_at: str
    corpus_commit: str | None = None
    harness: dict[str, str] | None = None
    transcripts: int | None = None
    evidence_schema: str | None = None
    suite: str | None = None
    binding: str | None = None
    host: str | None = None
    planned: int | None = None
    corpus_cases: int | None = None
    plugins: list[dict[str, Any]] | None = None


class LoggedTrial(TrialResult, frozen=True, kw_only=True, omit_defaults=True, rename="camel"):
    """A log line: the Trial as the Scorecard keeps it, and where its transcript is."""

    transcript: Pointer | None = None


def logged_line(encoder: msgspec.json.Encoder, result: TrialResult, pointer: Pointer) -> bytes:
    """The :class:`LoggedTrial` of ``result`` as JSON: the Trial's own object with its
    transcript member appended (the bytes the Struct would make, without copying every field
    into one for each Trial; the Trial's own as :func:`made_safe` read them, see ``encoded``)."""
    return encoded(result)[:-1] + b',"transcript":' + encoder.encode(pointer) + b"}"


class _Line(msgspec.Struct, frozen=True):
    transcript: Pointer | None = None


class ResumeRefused(Exception):  # noqa: N818 - it names an outcome
    """The log belongs to another Sweep, or cannot be read as a trial log."""


class Logged(msgspec.Struct, frozen=True):
    """A trial log as read: its header, its complete Trials (the last line of each), and where
    they end."""

    header: LogHeader
    trials: list[TrialResult]
    end: int
    torn: int = 0
    needs_newline: bool = False
    pointers: list[Pointer | None] | None = None  # each Trial's transcript, when recorded
    superseded: int = 0
    """Lines a later line of the same Trial replaced (a vendor-errored Trial run again)."""


VENDOR = "model_"
"""The prefix of a vendor failure's reason (``model_unreachable: ...``): the model's server
failed, not the system under test, so the Trial is worth running again."""


def vendor_errored(trial: TrialResult) -> bool:
    """The Trial errored because the model's server failed (a ``model_*`` reason)."""
    return trial.outcome == "errored" and (trial.error or "").startswith(VENDOR)


def _latest(
    trials: list[TrialResult], pointers: list[Pointer | None]
) -> tuple[list[TrialResult], list[Pointer | None], int]:
    """One record per Case and Trial number, the last written, in the order each Trial was
    first logged; and how many earlier lines were replaced."""
    kept: dict[tuple[str, int], tuple[TrialResult, Pointer | None]] = {}
    for trial, pointer in zip(trials, pointers, strict=True):
        kept[(trial.case_id, trial.trial)] = (trial, pointer)
    if len(kept) == len(trials):
        return trials, pointers, 0
    return [t for t, _ in kept.values()], [p for _, p in kept.values()], len(trials) - len(kept)


def is_trial_log(path: Path) -> bool:
    """Whether ``path`` starts with a Sweep header (a Scorecard is one JSON document), read
    from its first megabyte only, never the whole Sweep; :class:`NotReadable` as
    :func:`read_head` refuses."""
    first = read_head(path, HEAD_BYTES).split(b"\n", 1)[0]
    try:
        check_json_depth(first)
        header = msgspec.json.decode(first, type=LogHeader)
    except (msgspec.MsgspecError, TooDeep):
        return False
    return header.kind == "sweep"


def read(path: Path) -> Logged:
    """Read a trial log; :class:`ResumeRefused` naming the file, line and reason otherwise.

    Its lines are counted first, a megabyte at a time: a log of more Trials than a Sweep may
    plan and resume is refused before any is decoded (a million would take gigabytes)."""
    try:
        counted = count_lines(path, MAX_RECORD_BYTES, MOST_LINES)
        data = read_regular(path, MAX_RECORD_BYTES) if counted <= MOST_LINES else b""
    except NotReadable as exc:
        raise ResumeRefused(f"{path}: cannot read the trial log: {exc}") from None
    if counted > MOST_LINES:
        raise ResumeRefused(
            f"{path}: over {MOST_LINES:,} lines: more Trials than a Sweep may plan "
            f"({MAX_PLANNED_TRIALS:,}), even resumed: no Sweep wrote this (never decoded)"
        )
    lines = data.split(b"\n")
    # The last element is what follows the last line break: b"" when the file ends with one.
    tail = lines.pop()
    try:
        check_json_depth(lines[0] if lines else tail)
        header = msgspec.json.decode(lines[0] if lines else tail, type=LogHeader)
    except (msgspec.MsgspecError, TooDeep):
        raise ResumeRefused(f"{path}: line 1: not a trial log (no Sweep header)") from None
    decoder = msgspec.json.Decoder(TrialResult)
    trials: list[TrialResult] = []
    pointers: list[Pointer | None] = []
    end = len(lines[0]) + 1 if lines else len(tail)
    for number, line in enumerate(lines[1:], start=2):
        end += len(line) + 1
        if not line.strip():
            continue
        trials.append(_record(path, decoder, number, line))
        pointers.append(_pointer(path, number, line))
    torn = 0
    needs_newline = False
    if lines and tail.strip():
        try:
            trials.append(_record(path, decoder, len(lines) + 1, tail))
        except ResumeRefused:
            torn = len(tail)  # a torn last line: the Sweep died while writing it
        else:
            pointers.append(_pointer(path, len(lines) + 1, tail))
            end += len(tail)
            needs_newline = True
    elif not lines:
        needs_newline = True  # a header without its line break
    trials, pointers, superseded = _latest(trials, pointers)
    return Logged(header, trials, end, torn, needs_newline, pointers, superseded)


_POINTER = msgspec.json.Decoder(_Line)


def _pointer(path: Path, number: int, line: bytes) -> Pointer | None:
    try:
        return _POINTER.decode(line).transcript
    except msgspec.MsgspecError as exc:
        raise ResumeRefused(f"{path}: line {number}: $.transcript: {exc}") from None


def _record(
    path: Path, decoder: msgspec.json.Decoder[TrialResult], number: int, line: bytes
) -> TrialResult:
    try:
        check_json_depth(line)
        return decoder.decode(line)
    except TooDeep as exc:
        raise ResumeRefused(f"{path}: line {number}: {exc.path}: {exc.reason}") from None
    except msgspec.MsgspecError as exc:
        raise ResumeRefused(f"{path}: line {number}: not a Trial record ({exc})") from None


def check_resumable(
    header: LogHeader,
    corpus_hash: str,
    model_id: str,
    selected: list[str],
    repeat: int,
    corpus_commit: str | None = None,
    harness: dict[str, str] | None = None,
) -> None:
    """Refuse a log of another Sweep: Corpus, model, selection, ``--repeat``, the commit of
    the Corpus's tree and the harness's versions."""
    if corpus_commit is not None and header.corpus_commit is None:
        raise ResumeRefused(
            "the log does not record the commit of the Corpus's tree it was made at (an older "
            "harness wrote it): its Trials cannot be shown to be of this tree"
        )
    checks: list[tuple[str, object, object]] = [
        ("corpusHash", header.corpus_hash, corpus_hash),
        ("model", header.model_id, model_id),
        ("selection (--case)", sorted(header.selected), sorted(selected)),
        ("--repeat", header.repeat, repeat),
    ]
    if corpus_commit is not None:
        checks.append(("the Corpus's commit", header.corpus_commit, corpus_commit))
    if harness is not None and header.harness is not None:
        checks.append(("the harness", header.harness, harness))
    for what, logged, now in checks:
        if logged != now:
            raise ResumeRefused(f"the log is of another Sweep: {what} was {logged!r}, now {now!r}")
