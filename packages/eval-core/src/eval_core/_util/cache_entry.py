"""One cache entry: sealed by the digest of its content, read bounded, written whole or not at all.

Every cache ``eval`` keeps (the help, plug-in manifests, schema fingerprints, code digests, the
checked Corpus, a plug-in's own such as the Soul) stores its entries through here, so each is
held to the same rules: the entry is read with :func:`~eval_core._util.input_files.read_cache`
(a regular file reached without a link, size-capped before reading: a named pipe never blocks,
a link to ``/dev/zero`` is never read), it carries the SHA-256 of its own content and a
truncated or rewritten one is a miss, decoding it is bounded (msgspec's own recursion limit,
caught: any error is a miss), and it is written to a temporary file renamed over it, which is
removed when anything fails (a full disk leaves nothing behind). What the entry stands for is
the caller's key; an entry is trusted only under that key and only as far as the caller checks
it against its inputs (the checked Corpus re-decodes its Case files; see
:mod:`eval_core._util.checked`). Any doubt is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any, TypeVar

from eval_core._util.input_files import read_cache

T = TypeVar("T")

_SEAL = b"eval-cache\x001\x00"
_HEAD = len(_SEAL) + 32


def seal(data: bytes) -> bytes:
    """``data`` behind the seal and its SHA-256."""
    return _SEAL + hashlib.sha256(data).digest() + data


def unseal(data: bytes | None) -> bytes | None:
    """The content of a sealed entry, or ``None`` when it is not one or its digest disagrees."""
    if data is None or len(data) < _HEAD or not data.startswith(_SEAL):
        return None
    content = data[_HEAD:]
    if hashlib.sha256(content).digest() != data[len(_SEAL) : _HEAD]:
        return None
    return content


def read_entry(path: str | Path, limit: int) -> bytes | None:
    """The content of the entry at ``path`` (at most ``limit`` bytes), or ``None``: a miss."""
    return unseal(read_cache(path, limit + _HEAD))


def decode(data: bytes | None, type: type[T], *, json: bool = False) -> T | None:
    """``data`` (MessagePack, or JSON) as ``type``, or ``None`` for anything that does not
    decode, nests past msgspec's recursion limit or is otherwise in doubt."""
    if data is None:
        return None
    import msgspec

    try:
        if json:
            from eval_core._util.limits import TooDeep, check_json_depth

            try:
                check_json_depth(data)
            except TooDeep:
                return None
            return msgspec.json.decode(data, type=type)
        return msgspec.msgpack.decode(data, type=type)
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError, OverflowError):
        return None


def load(path: str | Path, type: type[T], limit: int, *, json: bool = False) -> T | None:
    """The entry at ``path`` decoded as ``type``, or ``None`` (a miss)."""
    return decode(read_entry(path, limit), type, json=json)


def write_entry(path: str | Path, data: bytes) -> bool:
    """Keep ``data`` at ``path``, sealed, whole or not at all (a rename); False when it could
    not be written (a cache that cannot be written is only slower). The temporary file is
    removed on every failure, a full disk's included."""
    from eval_core._util.cachedir import enabled

    if not enabled():
        return False
    target = Path(path)
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(seal(data))
        os.replace(tmp, target)
        return True
    except (OSError, ValueError):
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                if os.path.lexists(tmp):
                    os.unlink(tmp)


def dump(path: str | Path, value: Any, *, json: bool = False) -> bool:
    """Encode ``value`` (MessagePack, or JSON) and :func:`write_entry` it."""
    import msgspec

    try:
        data = msgspec.json.encode(value) if json else msgspec.msgpack.encode(value)
    except (msgspec.MsgspecError, OverflowError, TypeError, ValueError):
        return False
    return write_entry(path, data)
