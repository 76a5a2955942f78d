"""Synthesised document bytes, cached on disk by what makes them: safe because they are
deterministic, verified because a cache is never trusted.

Making a PDF, DOCX, XLSX or PPTX fixture costs importing its library (seconds) and running it.
The bytes are the same on every run for the same fixture and the same generator, so they are
kept under a key that hashes both: the File's fixture declaration, this package's version and
the version of every document library. An entry is the bytes followed by their SHA-256; an entry
whose digest does not match (a torn write, a disk error, a hand edit) is ignored and made again.
Writes go through a temporary file and a rename, so concurrent Sweeps never read half an entry.
``EVAL_CACHE_DIR`` moves the cache (default ``$XDG_CACHE_HOME/eval`` or ``~/.cache/eval``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

from eval_core.plugin import version

FORMAT = 2
"""The fixture generator's own version: raised whenever what a declaration makes changes (2:
the original's fixtures, US Letter PDFs, a stored three-part DOCX), so no older entry is reused."""
GENERATORS = (
    "eval-expectations-files",
    "fpdf2",
    "pypdf",
    "openpyxl",
    "python-pptx",
    "pillow",
)
DIGEST = 64  # hex characters of a SHA-256 at the end of an entry


@cache
def generator() -> str:
    """Every version that can change the bytes, in one string."""
    found = [f"format={FORMAT}"]
    for name in GENERATORS:
        found.append(f"{name}={version(name) or 'absent'}")
    return ";".join(found)


def directory() -> Path:
    configured = os.environ.get("EVAL_CACHE_DIR")
    if configured:
        return Path(configured) / "fixtures"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eval" / "fixtures"


def key(declaration: object) -> str:
    text = json.dumps([generator(), declaration], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def cached(declaration: object, make: Callable[[], bytes]) -> bytes:
    """The bytes for ``declaration``: from the cache when intact, else made and kept."""
    path = directory() / f"{key(declaration)}.bin"
    try:
        entry = path.read_bytes()
    except OSError:
        entry = b""
    data, digest = entry[:-DIGEST], entry[-DIGEST:]
    if len(entry) > DIGEST and hashlib.sha256(data).hexdigest().encode() == digest:
        return data
    data = make()
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
            temporary = out.name
            out.write(data + hashlib.sha256(data).hexdigest().encode())
        os.replace(temporary, path)
        temporary = None
    except OSError:
        pass  # an unwritable cache costs time, never a Trial
    finally:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
    return data
