"""The trial log: every Trial appended as a JSON line the moment it finishes, flushed.

A killed Sweep still leaves every finished Trial readable; ``eval sweep --resume LOG`` finishes
the same Sweep (same corpusHash, model and selection) without re-running what is done. The
first line is the Sweep's header; a torn last line (the process died mid-write) is ignored.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

import msgspec

from eval_core.trial import TrialResult


class LogHeader(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    kind: str = "sweep"
    corpus_hash: str
    model_id: str
    selected: list[str]
    repeat: int
    started_at: str


class ResumeRefused(Exception):  # noqa: N818 - it names an outcome
    """The log belongs to another Sweep."""


class TrialLog:
    """An open trial log, appending."""

    def __init__(self, path: Path, header: LogHeader, *, append: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._encoder = msgspec.json.Encoder()
        self._file: IO[bytes] = path.open("ab" if append else "wb")
        if not append:
            self._write(self._encoder.encode(header))

    def _write(self, line: bytes) -> None:
        self._file.write(line + b"\n")
        self._file.flush()

    def append(self, result: TrialResult) -> None:
        self._write(self._encoder.encode(result))

    def close(self) -> None:
        self._file.close()


def read(path: Path) -> tuple[LogHeader, list[TrialResult]]:
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError as exc:
        raise ResumeRefused(f"{path}: cannot read the trial log: {exc.strerror or exc}") from None
    try:
        header = msgspec.json.decode(lines[0], type=LogHeader)
    except msgspec.MsgspecError:
        raise ResumeRefused(f"{path}: not a trial log (no Sweep header on line 1)") from None
    decoder = msgspec.json.Decoder(TrialResult)
    trials: list[TrialResult] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            trials.append(decoder.decode(line))
        except msgspec.MsgspecError:
            if number == len(lines) or all(not rest.strip() for rest in lines[number:]):
                break  # a torn last line: the Sweep died while writing it
            raise ResumeRefused(f"{path}: line {number} is not a Trial record") from None
    return header, trials


def check_resumable(
    header: LogHeader, corpus_hash: str, model_id: str, selected: list[str], repeat: int
) -> None:
    for what, logged, now in (
        ("corpusHash", header.corpus_hash, corpus_hash),
        ("model", header.model_id, model_id),
        ("selection (--case)", sorted(header.selected), sorted(selected)),
        ("--repeat", header.repeat, repeat),
    ):
        if logged != now:
            raise ResumeRefused(f"the log is of another Sweep: {what} was {logged!r}, now {now!r}")
