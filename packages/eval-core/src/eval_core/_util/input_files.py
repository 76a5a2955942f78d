"""The one reader of untrusted files: a regular file, size-capped, refused with the reason.

A Case file, a Baseline, a saved Scorecard, a trial log, ``eval.lock``, the project's settings
(:mod:`eval_core._util.project`, which also asks who owns the file: :func:`read_with_status`),
a models file and every cache entry are read here; anything else under that name (a directory, a
dangling symbolic link, a named pipe, a device, a socket) is refused with the reason, and never
opened in a way that could block: a FIFO is opened non-blocking and refused by its type before
a single byte is read. A file larger than its limit (:data:`MAX_INPUT_BYTES` unless the caller
names a smaller one) is refused by its size before it is read, and a file that grows while it
is read is cut at the limit and refused, so a link to ``/dev/zero`` or a 3 GB file costs
nothing. A JSON input is also held to the depth limit (:mod:`eval_core._util.limits`) before any
decoder sees it (:func:`decode_json`). A cache entry is read with :func:`read_cache`: the same,
never through a symbolic link, and any doubt is ``None`` (a miss).

``tests/test_one_reader.py`` scans every package for a read of a path that is not made here.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from eval_core._util.limits import MAX_DEPTH, TooDeep, check_json_depth

MAX_INPUT_BYTES = 512 << 20
"""The largest input file read unless the caller names another limit (a Case file, a Baseline,
a saved Scorecard, ``eval.lock``)."""
MAX_RECORD_BYTES = 2 << 30
"""The largest trial log or transcript pack read: what a Sweep of the most Trials it may plan
(100,000) writes, about 6 KB and 8 KB a Trial, with room. Read whole until they stream."""


class NotReadable(Exception):  # noqa: N818 - it names an outcome
    """The path cannot be read as a regular file; the message is the reason (no path)."""


class TooLarge(NotReadable):
    """The file is larger than the limit it is read under (refused before it is read whole)."""

    def __init__(self, limit: int, size: int | None = None) -> None:
        said = f"{size:,} bytes, over" if size is not None else "over"
        super().__init__(f"{said} the limit of {limit:,} bytes (too large: never read whole)")
        self.limit = limit


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


def read_regular(
    path: str | Path, limit: int | None = MAX_INPUT_BYTES, *, follow_links: bool = True
) -> bytes:
    """The bytes of ``path``; :class:`NotReadable` with the reason when it is no regular file,
    :class:`TooLarge` when it holds more than ``limit`` bytes (by its size, before reading;
    ``None`` is :data:`MAX_INPUT_BYTES`). ``follow_links=False`` refuses a symbolic link itself
    (a cache entry is never one)."""
    return read_with_status(path, limit, follow_links=follow_links)[0]


def read_with_status(
    path: str | Path, limit: int | None = MAX_INPUT_BYTES, *, follow_links: bool = True
) -> tuple[bytes, os.stat_result]:
    """The bytes of ``path`` and the status of the file they were read from (the same open
    file: who owns it is the owner of these bytes, not of whatever the name points at later);
    refused as :func:`read_regular` refuses."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    fd = _open(path, follow_links)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotReadable(kind_of(status.st_mode))  # O_NONBLOCK kept a FIFO from hanging
        if status.st_size > limit:
            raise TooLarge(limit, status.st_size)
        data = os.read(fd, status.st_size + 1)  # one read, sized by the file (the usual case)
        if len(data) <= status.st_size:
            return data, status
        chunks = [data]  # it grew: read on, never past the limit
        total = len(data)
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise TooLarge(limit)
        return b"".join(chunks), status
    except OSError as exc:
        raise NotReadable(f"cannot read: {exc.strerror or exc}") from None
    except MemoryError:
        raise TooLarge(limit) from None
    finally:
        os.close(fd)


def _open(path: str | Path, follow_links: bool = True) -> int:
    """A descriptor of ``path`` opened read-only and non-blocking; :class:`NotReadable` with
    the reason when it cannot be opened (the caller checks what it is)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if os.path.islink(path):
            raise NotReadable("a dangling symbolic link (its target does not exist)") from None
        raise NotReadable("no such file") from None
    except OSError as exc:
        if not follow_links and os.path.islink(path):
            raise NotReadable("a symbolic link") from None
        raise NotReadable(f"cannot read: {exc.strerror or exc}") from None
    except ValueError:  # a NUL in the name
        raise NotReadable("cannot read: the name holds a NUL character") from None


def _regular(fd: int) -> os.stat_result:
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        raise NotReadable(kind_of(status.st_mode))  # O_NONBLOCK kept a FIFO from hanging
    return status


def read_head(path: str | Path, size: int) -> bytes:
    """At most the first ``size`` bytes of the regular file ``path`` (what a file is, told by
    its start, without reading the rest); refused as :func:`read_regular` refuses."""
    fd = _open(path)
    try:
        _regular(fd)
        return os.read(fd, size)
    except OSError as exc:
        raise NotReadable(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def count_lines(path: str | Path, limit: int, most: int) -> int:
    """How many lines the regular file ``path`` holds, counted a megabyte at a time (memory
    stays flat however large the file), stopping past ``most`` (the count returned is then
    over ``most``); :class:`TooLarge` past ``limit`` bytes, refused as :func:`read_regular`
    refuses. Lets a reader refuse a file of too many records before it decodes any."""
    fd = _open(path)
    try:
        status = _regular(fd)
        if status.st_size > limit:
            raise TooLarge(limit, status.st_size)
        lines = total = 0
        last = b"\n"
        while lines <= most:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise TooLarge(limit)
            lines += chunk.count(b"\n")
            last = chunk[-1:]
        return lines + (last != b"\n")
    except OSError as exc:
        raise NotReadable(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_cache(path: str | Path, limit: int) -> bytes | None:
    """A cache entry's bytes, or ``None`` (a miss) for anything but a regular file of at most
    ``limit`` bytes reached without a symbolic link."""
    try:
        return read_regular(path, limit, follow_links=False)
    except NotReadable:
        return None


def decode_json(
    data: bytes | str, type: Any = Any, *, decoder: Any = None, limit: int = MAX_DEPTH
) -> Any:
    """``data`` decoded as JSON into ``type`` (or by ``decoder``, a kept
    ``msgspec.json.Decoder``), refused (:class:`TooDeep`) past ``limit`` levels of nesting
    before the decoder (which recurses) sees it; msgspec's errors pass through."""
    import msgspec

    raw = data.encode() if isinstance(data, str) else data
    check_json_depth(raw, limit)
    if decoder is not None:
        return decoder.decode(raw)
    return msgspec.json.decode(raw, type=type)


class InputRefused(Exception):  # noqa: N818 - it names an outcome
    """An input file refused: ``file``, the JSON ``path`` (``$`` for the whole) and ``reason``."""

    def __init__(self, file: Path, path: str, reason: str) -> None:
        super().__init__(f"{file}: {path}: {reason}")
        self.file = file
        self.path = path
        self.reason = reason


def read_json_input(path: Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a JSON input file, a regular file within the size and depth limits, else
    refused."""
    try:
        data = read_regular(path, limit)
    except NotReadable as exc:
        raise InputRefused(path, "$", str(exc)) from None
    try:
        check_json_depth(data)
    except TooDeep as exc:
        raise InputRefused(path, exc.path, exc.reason) from None
    return data
