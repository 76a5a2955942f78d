"""One installed file's digests: of its bytes (raw), and of what it does (normalised).

Split from :mod:`eval_core._util.code`, which combines them into a package's digest: a file is
read only when the cache does not know its raw digest, and parsed only when its normalised
digest is asked for.
"""

from __future__ import annotations

import hashlib
import os

from eval_core._util.digest_cache import DigestCache
from eval_core._util.input_files import NotReadable, read_regular
from eval_core._util.syntax_digest import normalised

CACHE = DigestCache()
"""Every file digest this process knows, and those kept in the cache directory."""


class FileDigest:
    """One file of a package: its raw digest (of the bytes), and its :func:`normalised`
    digest from the cache, or once :meth:`normalise` ran. A file that is gone or unreadable
    digests as its reason (the fingerprint still moves). The bytes are read only when the
    cache does not know the raw digest, or when the file must be parsed."""

    __slots__ = ("_data", "_stat", "digest", "path", "raw")

    def __init__(self, path: str) -> None:
        self.path = path
        self._data: bytes | None = None
        self._stat: os.stat_result | None = None
        self.digest: str | None = None
        try:
            self._stat = os.stat(path)
        except OSError as exc:
            self.digest = self.raw = f"unreadable: {exc.strerror}"
            return
        cached = CACHE.get(path, self._stat)
        if cached is not None:
            self.digest, self.raw = cached  # the normalised one may not be known yet
        else:
            self._read()

    def _read(self) -> None:
        try:  # installed code, read by the bounded reader all the same (a FIFO never blocks)
            self._data = read_regular(self.path)
        except NotReadable as exc:
            self.digest = self.raw = f"unreadable: {exc}"
            self._data, self._stat = b"", None
            return
        self.raw = hashlib.sha256(self._data).hexdigest()

    def normalise(self) -> None:
        if self._data is None:  # only the raw digest was cached: read it now
            known = self.raw
            self._read()
            if self.digest is not None:
                return
            if self.raw != known:  # changed since its stat: digested, never kept
                self._stat = None
        self.digest, self._data = normalised(self.path, self._data or b""), b""
        if self._stat is not None:
            CACHE.put(self.path, self._stat, self.digest, self.raw)

    def keep_raw(self) -> None:
        """Keep this file's raw digest (all a cache key or a lock's pin needs), so the next
        command need not read it (:meth:`~eval_core._util.digest_cache.DigestCache.put_raw`)."""
        if self.digest is None and self._stat is not None:
            CACHE.put_raw(self.path, self._stat, self.raw)
