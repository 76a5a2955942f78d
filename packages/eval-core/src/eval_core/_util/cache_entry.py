"""One cache entry: sealed by the digest of its content, read bounded, written whole or not at all.

Every cache ``eval`` keeps (the help, plug-in manifests, schema fingerprints, code digests, the
checked Corpus, a plug-in's own such as the Soul) stores its entries through here, so each is
held to the same rules. The entry is read with :func:`~eval_core._util.input_files.read_cache`
(a regular file reached without a link, size-capped before reading: a named pipe never blocks,
a link to ``/dev/zero`` is never read). It carries a digest of its own content, an HMAC-SHA256
under this user's seal key, and a truncated, rewritten or forged one is a miss. Decoding it is
bounded (msgspec's own recursion limit, caught: any error is a miss). It is written to a
temporary file renamed over it, which is removed when anything fails (a full disk leaves
nothing behind). What the entry stands for is the caller's key; an entry is trusted only under
that key and only as far as the caller checks it against its inputs (the checked Corpus
re-decodes its Case files; see :mod:`eval_core._util.checked`). Any doubt is a miss, never an
error.

The seal key (32 random bytes, mode 0600) lives outside the cache directory, in the user's
state directory (``$XDG_STATE_HOME/eval/cache.key``, else ``~/.local/state/eval/cache.key``;
``%LOCALAPPDATA%\\eval\\cache.key`` on Windows): an entry written by anyone who cannot read
it (a shared or restored cache directory, a probe that grafts entries) is a miss, so no entry
can stand for a Soul or a Corpus it was not made from. A cache carried to another machine is
made again there. Without a key that can be read or made, nothing is cached.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from pathlib import Path
from typing import Any, TypeVar

from eval_core._util.input_files import read_cache

T = TypeVar("T")

_SEAL = b"eval-cache\x002\x00"
_HEAD = len(_SEAL) + 32
_KEY_BYTES = 32
_KEYS: dict[str, bytes | None] = {}


def key_path() -> Path:
    """Where this user's seal key lives: the state directory, never the cache directory."""
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
        return Path(base) / "eval" / "cache.key"
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(state) / "eval" / "cache.key"


def _key() -> bytes | None:
    """The seal key, made on first use (``None`` when it can be neither read nor made)."""
    path = str(key_path())
    if path in _KEYS:
        return _KEYS[path]
    found = read_cache(path, _KEY_BYTES)
    if found is None or len(found) != _KEY_BYTES:
        found = _make_key(Path(path))
    _KEYS[path] = found
    return found


def _make_key(path: Path) -> bytes | None:
    """A new key, linked into place only if none is there yet (two processes agree on one)."""
    import tempfile

    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".cache.key.", dir=path.parent)  # mode 0600
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(_KEY_BYTES))
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    except (OSError, ValueError):
        return None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    found = read_cache(path, _KEY_BYTES)
    return found if found is not None and len(found) == _KEY_BYTES else None


def _mac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def seal(data: bytes) -> bytes | None:
    """``data`` behind the seal and its HMAC (``None`` without a seal key)."""
    key = _key()
    return None if key is None else _SEAL + _mac(key, data) + data


def unseal(data: bytes | None) -> bytes | None:
    """The content of a sealed entry, or ``None`` when it is not one or its digest disagrees."""
    if data is None or len(data) < _HEAD or not data.startswith(_SEAL):
        return None
    key = _key()
    content = data[_HEAD:]
    if key is None or not hmac.compare_digest(_mac(key, content), data[len(_SEAL) : _HEAD]):
        return None
    return content


def read_entry(path: str | Path, limit: int) -> bytes | None:
    """The content of the entry at ``path`` (at most ``limit`` bytes), or ``None``: a miss.
    An entry of a plug-in's cache (:func:`~eval_core._util.cachedir.plugin_cache`) says its
    hit or miss under the plug-in cache's name (:mod:`eval_core._util.cache_use`)."""
    found = unseal(read_cache(path, limit + _HEAD))
    from eval_core._util.cachedir import plugin_of

    name = plugin_of(Path(path))
    if name is not None:
        from eval_core._util import cache_use

        cache_use.note(name, "miss" if found is None else "hit")
    return found


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
    sealed = seal(data)
    if sealed is None:
        return False
    import tempfile

    target = Path(path)
    tmp: str | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(sealed)
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
