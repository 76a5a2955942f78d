"""What travels to a Ray worker by content hash: the Corpus's files and the plug-in set.

A :class:`Bundle` holds the bytes of every file a worker needs to load the Corpus the driver
loaded: its Case files, the Eval Soul's files and ``eval.lock``, each under its path relative
to the Corpus root (the directory that holds ``soul/``). Its key is the SHA-256 of its
encoding; the driver puts the encoding in Ray's object store once per Sweep, and a worker
checks the bytes against the key before it writes a single file. The plug-in set travels the
same way, as the driver's lock encoding (``eval_core._plugins.lock``).

On the worker the files land in a directory named by the key (under the system's temporary
directory, per user), so workers of one node share it; what they then load is held to the
driver's corpusHash, which covers every Case and the Soul's own hash.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import msgspec

from eval_core.hosts import LOCK_NAME, Corpus, case_files, corpus_root


class BundleError(Exception):
    """The bytes do not match their key, or a path would land outside the bundle."""


class Bundle(msgspec.Struct, frozen=True, kw_only=True):
    """The files of one Corpus: ``files`` maps a ``/``-path under the Corpus root to bytes."""

    root: str  # the Corpus root's own name (kept: a red-team Corpus is told by its name)
    corpus: str  # the Corpus directory under the root: "." or "red-team"
    files: dict[str, bytes]


def key_of(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def pack(corpus: Corpus) -> tuple[str, bytes]:
    """The Corpus's files as one encoded :class:`Bundle`, and its key."""
    root = corpus_root(corpus.directory)
    files: dict[str, bytes] = {}
    soul = corpus.soul_dir  # none for a Host that owns its agents
    for path in sorted(p for p in soul.rglob("*") if p.is_file()) if soul is not None else ():
        files[path.relative_to(root).as_posix()] = path.read_bytes()
    lock = root / LOCK_NAME
    if lock.is_file():
        files[LOCK_NAME] = lock.read_bytes()
    for path in case_files(corpus.directory):
        files[path.relative_to(root).as_posix()] = path.read_bytes()
    rel = corpus.directory.resolve().relative_to(root.resolve()).as_posix()
    data = msgspec.msgpack.encode(
        Bundle(root=root.resolve().name or "corpus", corpus=rel, files=dict(sorted(files.items())))
    )
    return key_of(data), data


def unpack(key: str, data: bytes) -> Bundle:
    """The bundle behind ``key``, once its bytes are proven to be the ones the driver put."""
    got = key_of(bytes(data))
    if got != key:
        raise BundleError(f"the Corpus bytes received hash to {got}, not {key}")
    try:
        bundle = msgspec.msgpack.decode(data, type=Bundle)
    except msgspec.MsgspecError as exc:
        raise BundleError(f"the Corpus bundle {key} does not decode: {exc}") from None
    for rel in [*bundle.files, bundle.corpus]:
        parts = Path(rel).parts
        if Path(rel).is_absolute() or ".." in parts:
            raise BundleError(f"the Corpus bundle {key} names a path outside itself: {rel!r}")
    return bundle


def place(key: str, bundle: Bundle, under: Path | None = None) -> Path:
    """Write the bundle's files under a directory named by its key; the Corpus directory.

    Written into a fresh directory and renamed into place, so a worker never sees a half
    written bundle and two workers of one node writing it at once both end with one copy.
    """
    base = under or Path(tempfile.gettempdir()) / f"eval-ray-{os.getuid()}"
    final = base / key.replace(":", "-")
    if not final.is_dir():
        base.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=".incoming-", dir=base))
        try:
            for rel, data in bundle.files.items():
                target = fresh / bundle.root / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            (fresh / bundle.root / bundle.corpus).mkdir(parents=True, exist_ok=True)
            try:
                fresh.rename(final)
            except OSError:
                if not final.is_dir():
                    raise
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
    return final / bundle.root / bundle.corpus
