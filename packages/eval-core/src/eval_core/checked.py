"""The checked-Corpus cache: a Corpus loaded before from the same inputs is not checked again.

Checking is most of a load's cost, and its answer is a function of what it reads: each Case
file's name and bytes, the Eval Soul, the core's and every plug-in's code, the Host's code and
the judge. So a clean load is kept (one file per Corpus directory, the 64 most recent, under
:func:`eval_core.cachedir.cache_dir`), keyed by a digest of all of those, and the next load with
the same key decodes its Cases from it instead of checking them. A Host that offers no
``fingerprint()`` (what its load-time answers depend on besides the Soul) is never cached, and
``EVAL_CACHE=off`` turns the cache off. A missing, corrupt or foreign entry is a miss, never an
error; only a load without a problem is kept, so every refusal is always computed afresh.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

FORMAT = 1  # bump when what is stored, or how a key is made, changes


class Entry(msgspec.Struct, frozen=True):
    """One stored load: its key, the Cases (MessagePack) and what the Corpus records besides."""

    key: str
    cases: bytes
    hash: str
    plugins: list[dict[str, Any]]


def enabled() -> bool:
    return os.environ.get("EVAL_CACHE", "").lower() not in ("off", "0", "no", "false")


@cache
def core_code() -> str:
    """The fingerprint of the core's own code (its checks are part of every answer)."""
    import eval_core
    from eval_core.code import fingerprint

    return fingerprint("eval-core", eval_core).digest


def key(
    files: Sequence[tuple[str, bytes]],
    *,
    suite: str,
    soul: str,
    plugins: Sequence[tuple[str, str, str, str]],
    host: str,
    judge: str,
) -> str:
    """The digest of everything a load reads; ``plugins`` rows are (distribution, version,
    entry point, code)."""
    digest = hashlib.sha256()
    head = [
        FORMAT,
        sys.version_info[:2],
        msgspec.__version__,
        core_code(),
        sorted(plugins),
        host,
        suite,
        soul,
        judge,
    ]
    digest.update(msgspec.json.encode(head))
    for name, data in files:
        digest.update(b"\0%d\0%s\0" % (len(data), name.encode()))
        digest.update(data)
    return digest.hexdigest()


def _path(directory: Path, suite: str) -> Path:
    from eval_core.cachedir import cache_dir

    where = hashlib.sha256(f"{directory.resolve()}\0{suite}".encode()).hexdigest()[:32]
    return cache_dir() / "corpora" / f"{where}.bin"


def read(directory: Path, suite: str, wanted: str) -> Entry | None:
    """The stored load of ``directory`` when its key is ``wanted``, else ``None``."""
    try:
        data = _path(directory, suite).read_bytes()
        entry = msgspec.msgpack.decode(data, type=Entry)
    except (OSError, msgspec.MsgspecError):
        return None
    return entry if entry.key == wanted else None


def cases(entry: Entry, case_type: type) -> tuple[Any, ...] | None:
    """The stored Cases, decoded into the installed Case type (``None`` when they no longer
    decode: a miss)."""
    try:
        return tuple(msgspec.msgpack.decode(entry.cases, type=list[case_type]))  # type: ignore[valid-type]
    except msgspec.MsgspecError:
        return None


def write(directory: Path, suite: str, entry_key: str, corpus: Any) -> None:
    """Keep a clean load; a cache that cannot be written is no error."""
    try:
        entry = Entry(
            key=entry_key,
            cases=msgspec.msgpack.encode(list(corpus.cases)),
            hash=corpus.hash,
            plugins=list(corpus.plugins),
        )
        path = _path(directory, suite)
        replace(path, msgspec.msgpack.encode(entry))
    except (OSError, msgspec.MsgspecError, OverflowError, TypeError):
        return
    prune(path.parent, KEPT)


def replace(path: Path, data: bytes) -> None:
    """Write a cache entry whole or not at all (a rename), without waiting for the disk: an
    entry a crash cuts short decodes as nothing, which is a miss."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


KEPT = 64
"""Corpus directories kept; the least recently written beyond them are removed."""


def prune(directory: Path, kept: int) -> None:
    """Remove the oldest entries of a cache directory beyond ``kept`` (never an error)."""
    try:
        entries = [(e.stat().st_mtime_ns, e.path) for e in os.scandir(directory) if e.is_file()]
    except OSError:
        return
    for _, path in sorted(entries, reverse=True)[kept:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def host_fingerprint(host: object) -> str | None:
    """The Host's own ``fingerprint()``, or ``None`` (never cache) when it has none or fails."""
    method: Callable[[], object] | None = getattr(host, "fingerprint", None)
    if method is None:
        return None
    try:
        value = method()
    except Exception:
        return None
    return value if isinstance(value, str) and value else None
