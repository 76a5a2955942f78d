"""The code digests' cache (:mod:`eval_core._util.code`): each installed file's digests by path,
valid while the file is unchanged, so a command re-reads no file it has digested before.

Two digests per file: the raw one (of its bytes) and the normalised one (of what it does). The
raw digest alone is kept too: where a lock pins a package's bytes (:func:`~eval_core._util.code.
remember`), the package's code digest is the pin, and nothing is parsed; the next command then
needs the raw digests only, and reads no file either (a hit). The normalised digest is filled in
once the file is parsed. Either is a fact about the file's bytes, never a claim from a lock.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_RACY_NS = 2_000_000_000
_FORMAT = 5  # bump when the entry changes (5: a raw digest alone is kept): old ones ignored
_MAX_ENTRY_BYTES = 64 << 20  # about 200 bytes a file: far more files than any site holds


def _stamp(stat: os.stat_result) -> list[int]:
    """What says a file is unchanged: mtime, size, inode and change time."""
    return [stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_ctime_ns]


class DigestCache:
    """File digests by path, valid while the file's :func:`_stamp` stays the same: kept for the
    process and in a JSON file shared by every process (written atomically; losing a race only
    costs a re-parse). A file written in the last two seconds is never cached: an edit within
    the clock's tick could keep both (git's racy-clean rule). The entry's name holds the
    interpreter and the normaliser's own bytes (an edit to it is a new entry)."""

    def __init__(self) -> None:
        self._entries: dict[str, list[Any]] | None = None
        self._dirty = False
        self.fresh: set[str] = set()  # the paths digested by this process
        self.held = 0  # while above 0, saves wait: a load digests every plug-in, then saves once

    @property
    def path(self) -> Path:
        from eval_core._util.cache_key import interpreter
        from eval_core._util.cachedir import cache_dir
        from eval_core._util.syntax_digest import normaliser

        head = f"{_FORMAT}\0{interpreter()}\0{normaliser()}".encode()
        return cache_dir() / f"code-digests-{hashlib.sha256(head).hexdigest()[:16]}.json"

    def entries(self) -> dict[str, list[Any]]:
        if self._entries is None:
            from eval_core._util import cache_entry, cachedir

            loaded = (
                cache_entry.load(self.path, dict[str, list[Any]], _MAX_ENTRY_BYTES, json=True)
                if cachedir.enabled()
                else None
            )
            self._entries = loaded if loaded is not None else {}
        return self._entries

    def get(self, path: str, stat: os.stat_result) -> tuple[str | None, str] | None:
        """The file's (normalised, raw) digests while its :func:`_stamp` is unchanged; the
        normalised one is ``None`` while only the raw one is known."""
        found = self.entries().get(path)
        if isinstance(found, list) and len(found) == 6 and found[:4] == _stamp(stat):
            return (str(found[4]) if found[4] else None), str(found[5])
        return None

    def put(self, path: str, stat: os.stat_result, digest: str, raw: str) -> None:
        self.fresh.add(path)
        self._keep(path, stat, digest, raw)

    def put_raw(self, path: str, stat: os.stat_result, raw: str) -> None:
        """Keep a file's raw digest alone (a lock's pin answered for its package): never over
        an entry that holds its normalised digest too."""
        kept = self.entries().get(path)
        if not (isinstance(kept, list) and len(kept) == 6 and kept[:4] == _stamp(stat)):
            self._keep(path, stat, "", raw)

    def _keep(self, path: str, stat: os.stat_result, digest: str, raw: str) -> None:
        if time.time_ns() - stat.st_mtime_ns > _RACY_NS:
            self.entries()[path] = [*_stamp(stat), digest, raw]
            self._dirty = True

    def save(self) -> None:
        if not self._dirty or self._entries is None or self.held:
            return
        self._dirty = False
        from eval_core._util import cache_entry

        live = {k: v for k, v in self._entries.items() if os.path.exists(k)}
        cache_entry.dump(self.path, live, json=True)  # best effort: a failure is only slower

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Save once, at the end, what the digests inside it added (a cold load digests some
        twenty packages: saving the growing entry after each rewrote it twenty times)."""
        self.held += 1
        try:
            yield
        finally:
            self.held -= 1
            self.save()
