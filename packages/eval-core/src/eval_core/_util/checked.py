"""The checked-Corpus cache: a Corpus loaded before from the same inputs is not checked again.

Checking is most of a load's cost, and its answer is a function of what it reads: each Case file's
name and bytes, the Eval Soul, the core's and every plug-in's code, the Host's code, the judge and
the interpreter (:mod:`eval_core._util.cache_key`). So a clean load is kept (one file per Corpus
directory, the 64 most recent, under :func:`eval_core._util.cachedir.cache_dir`), keyed by a digest
of all of those, and the next load with the same key takes its Cases as checked instead of
checking them again.

A Case file's own checks read only that file and the rest of those inputs (its *environment*:
all but the other Case files), never another Case file. So when the environment is unchanged
and only some files changed, the Cases of every file whose name and bytes are the same are
taken from the entry and only the changed files are checked; what spans files (duplicate ids,
the planned Trials, corpusHash) is always computed afresh. A Host that offers no
``fingerprint()`` (what its load-time answers depend on besides the Soul) is never cached, and
``EVAL_CACHE=off`` turns the cache off. A missing, corrupt or foreign entry is a miss, never an
error; only a load without a problem is kept, so every refusal is always computed afresh.

An entry cannot change a verdict (issue 45): it is read and written as every cache entry is
(:mod:`eval_core._util.cache_entry`: bounded, sealed by its content's digest, atomic, never
inside the Corpus or its Soul), and what it says is never taken on its word. It holds no Case:
for each Case file it keeps the SHA-256 of the canonical encoding (what the corpusHash hashes)
of every Case the file gave when it was checked, its variants included. The Cases are always
decoded afresh from the Case files' bytes (a typed decode, without the checks), and a kept
file's are taken as checked only when their digests are the ones kept; the corpusHash and each
Case's digest are computed afresh from those Cases (from the very encodings compared). So a
rewritten, truncated or grafted entry is at worst a miss: the only thing it stands for is that
these very Cases passed the checks in this very environment.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import msgspec

FORMAT = 6  # bump when what is stored, or how a key is made, changes (6: digests, no Cases)


class Entry(msgspec.Struct, frozen=True):
    """One stored load: its key and environment, and the Cases each Case file gave, as the
    SHA-256 of each one's canonical encoding (the file's Case, then its variants)."""

    key: str
    environment: str
    files: dict[str, list[str]]  # a file's key -> its Cases' digests


def environment(
    *,
    suite: str,
    soul: str,
    plugins: Sequence[tuple[str, str, str, str]],
    host: str,
    judge: str,
) -> str:
    """The digest of everything a load reads but the Case files; ``plugins`` rows are
    (distribution, version, entry point, code)."""
    from eval_core._util.cache_key import common

    head = [
        FORMAT,
        *common(),
        sorted(plugins),
        host,
        suite,
        soul,
        judge,
    ]
    return hashlib.sha256(msgspec.json.encode(head)).hexdigest()


def file_key(name: str, data: bytes) -> str:
    """The digest of one Case file's name and bytes."""
    digest = hashlib.sha256(b"%d\0%s\0" % (len(data), name.encode()))
    digest.update(data)
    return digest.hexdigest()


def key(environment: str, files: Sequence[str]) -> str:
    """The digest of a whole load: its environment and every Case file's key, in name order."""
    return hashlib.sha256("\0".join((environment, *files)).encode()).hexdigest()


def _path(directory: Path, suite: str) -> Path:
    from eval_core._util.cachedir import cache_dir

    named = f"{directory.resolve()}\0{suite}\0{FORMAT}"  # another format, another file
    where = hashlib.sha256(named.encode()).hexdigest()[:32]
    return cache_dir() / "corpora" / f"{where}.bin"


MAX_ENTRY_BYTES = 256 << 20
"""The largest entry read (about 25 KB a Case: far beyond the most Cases a Sweep plans)."""


def read(directory: Path, suite: str) -> Entry | None:
    """The stored load of ``directory``, whatever its key (``None`` when there is none)."""
    return read_path(_path(directory, suite))


def read_path(path: Path) -> Entry | None:
    """The entry at ``path`` (``None``: a miss)."""
    from eval_core._util import cache_entry

    return cache_entry.load(path, Entry, MAX_ENTRY_BYTES)


def reusable(entry: Entry | None, environment: str) -> dict[str, list[str]]:
    """The digests of the Cases each file gave when it was checked, by file key, when the entry
    was made in the same environment (else nothing: every file is checked)."""
    if entry is None or entry.environment != environment:
        return {}
    return entry.files


def write(
    directory: Path, suite: str, entry_key: str, environment: str, files: Mapping[str, list[str]]
) -> None:
    """Keep a clean load; a cache that cannot be written is no error."""
    try:
        entry = Entry(key=entry_key, environment=environment, files=dict(files))
        data = msgspec.msgpack.encode(entry)
    except (msgspec.MsgspecError, OverflowError, TypeError):
        return
    from eval_core._util.cache_entry import write_entry

    path = _path(directory, suite)
    if write_entry(path, data):
        prune(path.parent, KEPT)


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
