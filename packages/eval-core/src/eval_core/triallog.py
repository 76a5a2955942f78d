"""The trial log: every Trial appended as a JSON line the moment it finishes, flushed.

A killed Sweep still leaves every finished Trial readable; ``eval sweep --resume LOG`` finishes
the same Sweep (same corpusHash, model, selection and harness commit) without re-running what
is done. The first line is the Sweep's header, which records the harness version: a log made
by another commit (or by a harness too old to record it) is refused, so a Scorecard never
mixes Trials of two harnesses.

A new log is created exclusively (it never overwrites a file, and two Sweeps never share one).
A torn last line (the process died mid-write) is dropped when resuming: the file is truncated
to the end of the last complete record, and :attr:`Logged.torn` says how many bytes went.
Every record passes through the caller's ``scrub`` (credential redaction) before it is written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import msgspec

from eval_core.input_files import NotReadable, read_regular
from eval_core.limits import TooDeep, check_json_depth
from eval_core.trial import TrialResult


class LogHeader(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    kind: str = "sweep"
    corpus_hash: str
    model_id: str
    selected: list[str]
    repeat: int
    started_at: str
    harness_version: str | None = None


class ResumeRefused(Exception):  # noqa: N818 - it names an outcome
    """The log belongs to another Sweep, or cannot be read as a trial log."""


class LogWriteFailed(Exception):  # noqa: N818 - it names an outcome
    """Appending to the log failed (a full disk, a file size limit...): the message says why."""


Scrub = Callable[[bytes], bytes]


def _unchanged(data: bytes) -> bytes:
    return data


class TrialLog:
    """An open trial log, appending.

    ``TrialLog.create`` makes a new log (exclusive create: an existing file is an error);
    ``TrialLog.resume`` appends to a log :func:`read` accepted, first cutting a torn tail.
    """

    def __init__(self, path: Path, handle: IO[bytes], scrub: Scrub | None = None) -> None:
        self.path = path
        self._file = handle
        self._encoder = msgspec.json.Encoder()
        self._scrub = scrub or _unchanged

    @classmethod
    def create(cls, path: Path, header: LogHeader, scrub: Scrub | None = None) -> TrialLog:
        """A new log at ``path`` with its header; ``FileExistsError`` if anything is there."""
        path.parent.mkdir(parents=True, exist_ok=True)
        log = cls(path, path.open("xb"), scrub)
        try:
            log._write(log._encoder.encode(header))
        except LogWriteFailed:
            log.close()
            raise
        return log

    @classmethod
    def resume(cls, path: Path, logged: Logged, scrub: Scrub | None = None) -> TrialLog:
        """Append to ``path`` after its last complete record (a torn tail is cut off)."""
        handle = path.open("r+b")
        try:
            handle.truncate(logged.end)
            handle.seek(logged.end)
            if logged.end and logged.needs_newline:
                handle.write(b"\n")
                handle.flush()
        except OSError:
            handle.close()
            raise
        return cls(path, handle, scrub)

    def _write(self, line: bytes) -> None:
        try:
            self._file.write(self._scrub(line) + b"\n")
            self._file.flush()
        except OSError as exc:
            raise LogWriteFailed(
                f"the trial log {self.path} could not be written: {exc.strerror or exc}"
            ) from None

    def append(self, result: TrialResult) -> None:
        self._write(self._encoder.encode(result))

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a failed flush was reported by its append
            self._file.close()


@dataclass(frozen=True, slots=True)
class Logged:
    """A trial log as read: its header, its complete Trials, and where they end."""

    header: LogHeader
    trials: list[TrialResult]
    end: int
    torn: int = 0
    needs_newline: bool = False


def read(path: Path) -> Logged:
    """Read a trial log; :class:`ResumeRefused` naming the file, line and reason otherwise."""
    try:
        data = read_regular(path)
    except NotReadable as exc:
        raise ResumeRefused(f"{path}: cannot read the trial log: {exc}") from None
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
    end = len(lines[0]) + 1 if lines else len(tail)
    for number, line in enumerate(lines[1:], start=2):
        end += len(line) + 1
        if not line.strip():
            continue
        trials.append(_record(path, decoder, number, line))
    torn = 0
    needs_newline = False
    if lines and tail.strip():
        try:
            trials.append(_record(path, decoder, len(lines) + 1, tail))
        except ResumeRefused:
            torn = len(tail)  # a torn last line: the Sweep died while writing it
        else:
            end += len(tail)
            needs_newline = True
    elif not lines:
        needs_newline = True  # a header without its line break
    return Logged(header, trials, end, torn, needs_newline)


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
    harness_version: str | None = None,
) -> None:
    """Refuse a log of another Sweep: Corpus, model, selection, ``--repeat``, harness commit."""
    if harness_version is not None and header.harness_version is None:
        raise ResumeRefused(
            "the log does not record the harness version it was made with (an older harness "
            "wrote it): its Trials cannot be shown to be of this harness"
        )
    checks: list[tuple[str, object, object]] = [
        ("corpusHash", header.corpus_hash, corpus_hash),
        ("model", header.model_id, model_id),
        ("selection (--case)", sorted(header.selected), sorted(selected)),
        ("--repeat", header.repeat, repeat),
    ]
    if harness_version is not None:
        checks.append(("the harness version", header.harness_version, harness_version))
    for what, logged, now in checks:
        if logged != now:
            raise ResumeRefused(f"the log is of another Sweep: {what} was {logged!r}, now {now!r}")
