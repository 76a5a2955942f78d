"""Reading an input file: a regular file, read whole, refused with the reason otherwise.

A Case file, a Baseline, a saved Scorecard, a trial log, ``eval.lock`` or the project's settings
(:mod:`eval_core._util.project`, which also asks who owns the file, and caps its size) is read
whole; anything
else under that name (a directory, a dangling symbolic link, a named pipe, a device, a socket)
is refused with the reason, and never opened in a way that could block: a FIFO is opened
non-blocking and refused by its type before a single byte is read. A JSON input is also held
to the depth limit (:mod:`eval_core._util.limits`) before any decoder sees it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from eval_core._util.limits import TooDeep, check_json_depth


class NotReadable(Exception):  # noqa: N818 - it names an outcome
    """The path cannot be read as a regular file; the message is the reason (no path)."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def read_regular(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of ``path``; :class:`NotReadable` with the reason when it is no regular file
    (or, with a ``limit``, when it holds more bytes than that)."""
    return read_with_status(path, limit)[0]


def read_with_status(path: str | Path, limit: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` and the status of the file they were read from (the same open
    file: who owns it is the owner of these bytes, not of whatever the name points at later).
    With a ``limit``, a larger file is refused by its size before a byte is read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if os.path.islink(path):
            raise NotReadable("a dangling symbolic link (its target does not exist)") from None
        raise NotReadable("no such file") from None
    except OSError as exc:
        raise NotReadable(f"cannot read: {exc.strerror or exc}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotReadable(kind_of(status.st_mode))  # O_NONBLOCK kept a FIFO from hanging
        if limit is not None and status.st_size > limit:
            raise NotReadable(f"{status.st_size:,} bytes, over the limit of {limit:,}")
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if limit is not None and size > limit:  # it grew while being read
                raise NotReadable(f"over the limit of {limit:,} bytes")
            chunks.append(chunk)
        return b"".join(chunks), status
    except OSError as exc:
        raise NotReadable(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


class InputRefused(Exception):  # noqa: N818 - it names an outcome
    """An input file refused: ``file``, the JSON ``path`` (``$`` for the whole) and ``reason``."""

    def __init__(self, file: Path, path: str, reason: str) -> None:
        super().__init__(f"{file}: {path}: {reason}")
        self.file = file
        self.path = path
        self.reason = reason


def read_json_input(path: Path) -> bytes:
    """The bytes of a JSON input file, a regular file within the depth limit, else refused."""
    try:
        data = read_regular(path)
    except NotReadable as exc:
        raise InputRefused(path, "$", str(exc)) from None
    try:
        check_json_depth(data)
    except TooDeep as exc:
        raise InputRefused(path, exc.path, exc.reason) from None
    return data
