"""Synthesised document bytes, cached on disk by what makes them: safe because they are
deterministic, verified because a cache is never trusted.

Making a PDF, DOCX, XLSX or PPTX fixture costs importing its library (seconds) and running it.
The bytes are the same on every run for the same fixture and the same generator, so they are
kept under a key that hashes both: the File's fixture declaration, this package's version and
code (an edit to a generator without a version bump is a new key), the version of every document
library, and what every cache key holds (the interpreter, msgspec, the core: the directory
:func:`eval_core.kinds.plugin_cache` gives is named by them). Entries are read and written as
every cache entry is (``read_cache_entry``/``write_cache_entry``: a regular file, size-capped,
sealed by its SHA-256, written through a temporary file and a rename that a failure removes), so
an entry whose digest does not match (a torn write, a disk error, a hand edit) is ignored and
made again, and concurrent Sweeps never read half an entry. They live under ``plugins/fixtures``
of the cache directory (``EVAL_CACHE_DIR`` moves it; ``EVAL_CACHE=off`` makes every fixture
afresh).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from eval_core.kinds import (
    content_digest,
    plugin_cache,
    read_cache_entry,
    version,
    write_cache_entry,
)

FORMAT = 3
"""The fixture generator's own version: raised whenever what a declaration makes changes (2:
the original's fixtures, US Letter PDFs, a stored three-part DOCX; 3: keyed by code and
interpreter), so no older entry is reused."""
GENERATORS = (
    "eval-expectations-files",
    "fpdf2",
    "pypdf",
    "openpyxl",
    "python-pptx",
    "pillow",
)
MAX_ENTRY_BYTES = 256 << 20
"""The largest entry read: a fixture past it is made again, never read whole."""


@cache
def generator() -> str:
    """Every version that can change the bytes, and this package's code, in one string."""
    import eval_expectations_files

    code = content_digest("eval-expectations-files", eval_expectations_files)
    found = [f"format={FORMAT}", f"code={code}"]
    for name in GENERATORS:
        found.append(f"{name}={version(name) or 'absent'}")
    return ";".join(found)


def directory() -> Path | None:
    """Where the entries live (``None`` while caches are off or the cache may not be used)."""
    return plugin_cache("fixtures")


def key(declaration: object) -> str:
    text = json.dumps([generator(), declaration], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def cached(declaration: object, make: Callable[[], bytes]) -> bytes:
    """The bytes for ``declaration``: from the cache when intact, else made and kept."""
    where = directory()
    if where is None:
        return make()
    path = where / f"{key(declaration)}.bin"
    kept = read_cache_entry(path, MAX_ENTRY_BYTES)
    if kept is not None:
        return kept
    data = make()
    write_cache_entry(path, data)  # an unwritable cache costs time, never a Trial
    return data
