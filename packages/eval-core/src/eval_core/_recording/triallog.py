"""The trial log: every Trial appended as a JSON line the moment it finishes, flushed.

A killed Sweep still leaves every finished Trial readable; ``eval sweep --resume LOG`` finishes
the same Sweep (same corpusHash, model, selection, commit of the Corpus's tree and harness
versions) without re-running what is done. The first line is the Sweep's header, which records
them: a log made at another commit (or by a harness too old to record it) is refused, so a
Scorecard never mixes Trials of two states of the system under test or of two harnesses.

A new log is created exclusively (it never overwrites a file, and two Sweeps never share one).
A torn last line (the process died mid-write) is dropped when resuming: the file is truncated
to the end of the last complete record, and ``Logged.torn`` says how many bytes went.
Every record passes through the caller's ``scrub`` (credential redaction) before it is written.

A log whose header records ``transcripts`` (the format version) keeps each Trial's whole
Evidence in a side file beside it (:mod:`eval_core._recording.transcript`); its line points
there. The header also says what a reader needs to judge the Sweep without the Corpus at hand
(suite, binding, Host, Trials planned, Cases in the Corpus, the plug-ins whose kinds it uses).

A Trial may be logged more than once: ``--resume --rerun-errored`` runs again the Trials whose
recorded outcome is a vendor error and appends their new lines, keeping the old. A reader takes
the later line of each Trial (:func:`~eval_core._recording.log_records.read` returns one record
per Case and Trial number, the last written), so the log stays append-only and every reader
agrees on what it holds.

One process writes a log at a time: the writer holds an exclusive lock on it (``flock``) from
create or resume to close, and a second ``--resume`` of the same log is refused in one line
instead of interleaving its lines with the first's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import msgspec

from eval_core._case.evidence import Evidence
from eval_core._recording import transcript
from eval_core._recording.log_records import Logged, LogHeader, ResumeRefused, logged_line
from eval_core._running.scorecard import encoded
from eval_core._running.trial import TrialResult


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

    def __init__(
        self,
        path: Path,
        handle: IO[bytes],
        scrub: Scrub | None = None,
        pack: transcript.Pack | None = None,
    ) -> None:
        self.path = path
        self._file = handle
        self._encoder = msgspec.json.Encoder()
        self._scrub = scrub or _unchanged
        self._pack = pack

    @classmethod
    def create(cls, path: Path, header: LogHeader, scrub: Scrub | None = None) -> TrialLog:
        """A new log at ``path`` with its header (and its transcripts' side file when the
        header records them); ``FileExistsError`` if anything is at either path."""
        path.parent.mkdir(parents=True, exist_ok=True)
        pack = None
        if header.transcripts is not None:
            pack = transcript.Pack.create(transcript.pack_path(path))
        try:
            handle = path.open("xb")
        except OSError:
            if pack is not None:
                pack.close()
                pack.path.unlink()  # made exclusively a moment ago: ours to remove
            raise
        _lock(handle, path)  # made exclusively: no one else holds it
        log = cls(path, handle, scrub, pack)
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
        pack = None
        try:
            _lock(handle, path)
            if os.fstat(handle.fileno()).st_size != logged.end + logged.torn:
                raise ResumeRefused(f"{path} changed while it was read: resume it again")
            handle.truncate(logged.end)
            handle.seek(logged.end)
            if logged.end and logged.needs_newline:
                handle.write(b"\n")
                handle.flush()
            if logged.header.transcripts is not None:
                side = transcript.pack_path(path)
                try:
                    pack = transcript.Pack.resume(side)
                except OSError as exc:
                    why = exc.strerror or str(exc)
                    raise ResumeRefused(f"{side}: cannot append its transcripts: {why}") from None
        except (OSError, ResumeRefused):
            handle.close()
            raise
        return cls(path, handle, scrub, pack)

    def _write(self, line: bytes) -> None:
        try:
            self._file.write(self._scrub(line) + b"\n")
            self._file.flush()
        except OSError as exc:
            raise LogWriteFailed(
                f"the trial log {self.path} could not be written: {exc.strerror or exc}"
            ) from None

    def append(
        self, result: TrialResult, expect: Any = (), evidence: Evidence | None = None
    ) -> None:
        """Append one Trial; with its Evidence (and the Expectations it was scored by), its
        transcript goes to the side file first, so a line never points at nothing."""
        if evidence is None or self._pack is None:
            self._write(encoded(result))
            return
        try:
            data = transcript.encode(expect, evidence, self._scrub, self._pack)
            pointer = self._pack.put(data)
        except OSError as exc:
            raise LogWriteFailed(
                f"the trial log {self.path} could not be written: {exc.strerror or exc} (its "
                f"transcripts, {self._pack.path.name})"
            ) from None
        self._write(logged_line(self._encoder, result, pointer))

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a failed flush was reported by its append
            self._file.close()
            if self._pack is not None:
                self._pack.close()


def _lock(handle: IO[bytes], path: Path) -> None:
    """Hold the log's writer lock until ``handle`` closes, or refuse: someone else writes it."""
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ResumeRefused(
            f"{path} is being written by another eval process: one writer per trial log"
        ) from None
