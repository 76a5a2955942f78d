"""stdout and stderr that cannot be written end a command in one line, never a traceback.

A closed stdout or stderr, or stdout on a full device (``/dev/full``), made every command end
in an ``OSError`` traceback. So the console script guards both before anything runs:

- a closed descriptor 0, 1 or 2 is reopened on ``/dev/null`` first, so no file the command
  opens (a trial log) takes its number and no child process writes into it;
- each stream is wrapped so a write or flush that fails is recorded, not raised: the command
  runs to its end (its Scorecard, trial log and ``--save`` are still written);
- at the end, when stdout could not be written, one line says so on stderr (if it still works)
  and the exit code is 2, "an output that cannot be written", unless it already is 2, 3 or
  130; a stderr that cannot be written loses only the diagnostics, never the exit code.

The failed descriptor is pointed at ``/dev/null`` so the interpreter's last flush is quiet.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Any, TextIO

REFUSED = 2


class Guarded(io.TextIOBase):
    """A text stream whose write and flush never raise; ``failed`` says why it stopped."""

    def __init__(self, inner: TextIO | None, fd: int) -> None:
        super().__init__()
        self.inner = inner
        self.fd = fd
        self.failed: str | None = None if inner is not None else "closed"

    def _fail(self, exc: BaseException) -> None:
        if self.failed is None:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            self.failed = "closed" if isinstance(exc, ValueError) else reason
        _silence(self.fd)

    def write(self, text: str) -> int:
        if self.failed is None and self.inner is not None:
            try:
                return self.inner.write(text)
            except (OSError, ValueError) as exc:
                self._fail(exc)
        return len(text)

    def flush(self) -> None:
        if self.failed is None and self.inner is not None:
            try:
                self.inner.flush()
            except (OSError, ValueError) as exc:
                self._fail(exc)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        try:
            return self.failed is None and self.inner is not None and self.inner.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        return self.fd

    @property
    def buffer(self) -> _Bytes:
        """The binary side, guarded alike (``eval schema`` writes bytes)."""
        return _Bytes(self)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)

    def __getattr__(self, name: str) -> Any:  # buffer, reconfigure, ...: the real stream's
        return getattr(self.inner, name)


class _Bytes:
    """The binary stream beneath a :class:`Guarded` one: its failures are the same stream's."""

    def __init__(self, text: Guarded) -> None:
        self.text = text

    def write(self, data: bytes) -> int:
        text = self.text
        if text.failed is None and text.inner is not None:
            try:
                text.inner.flush()  # what was written as text goes first
                written: int = text.inner.buffer.write(data)
                return written
            except (OSError, ValueError, AttributeError) as exc:
                text._fail(exc)
        return len(data)

    def flush(self) -> None:
        text = self.text
        if text.failed is None and text.inner is not None:
            try:
                text.inner.buffer.flush()
            except (OSError, ValueError, AttributeError) as exc:
                text._fail(exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(getattr(self.text.inner, "buffer", None), name)


def _silence(fd: int) -> None:
    """Point ``fd`` at /dev/null, so the interpreter's own last flush cannot fail."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


def _reopen_closed() -> None:
    for fd, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, flags)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)


def guard() -> tuple[Guarded, Guarded]:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (see the module); call once, first."""
    out, err = sys.stdout, sys.stderr  # None when the descriptor was closed at start
    _reopen_closed()
    guarded = Guarded(out, 1), Guarded(err, 2)
    sys.stdout, sys.stderr = guarded
    return guarded


def finish(code: int, streams: tuple[Guarded, Guarded]) -> int:
    """The exit code once both streams are flushed: 2 when stdout could not be written."""
    out, err = streams
    out.flush()
    err.flush()
    if out.failed is not None:
        lost = f"eval: stdout cannot be written ({out.failed}): the command's output is lost\n"
        err.write(lost)
        err.flush()
        code = code if code in (REFUSED, 3, 130) else REFUSED
    if sys.stdout is out:  # as they were (a caller in this process keeps its own streams)
        sys.stdout = out.inner
    if sys.stderr is err:
        sys.stderr = err.inner
    return code
