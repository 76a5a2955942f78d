"""A plug-in's installed code as one digest: releases pin code, not prose.

A scorer edited without a version bump changes what a Case measures; the lock and the
corpusHash must see it. A reworded docstring or comment changes nothing a Case measures; they
must not. So a Python file is fingerprinted by its syntax tree without docstrings (comments and
line numbers are not in it), any other file by its bytes.

A wheel install is fingerprinted from the files its RECORD lists; an editable or workspace
install (``direct_url.json`` says editable), or a distribution without a RECORD, from the source
tree of the package its plug-in module belongs to. Never ``__pycache__``, compiled files, hidden
files or the ``.dist-info``; each file keyed by its path from the import root, so one source
gives one fingerprint however it was installed.

Every command that loads the plug-in set pays for this, so it stays cheap: parsing is paid once
per file version. A file's digest is cached, keyed by its path, mtime, size, inode and change
time (which no one sets by hand: a file rewritten to its old size and mtime still moves it), in
memory and in ``$EVAL_CACHE_DIR`` (default ``~/.cache/eval``), in an entry named by the
interpreter and by the normaliser's own bytes (:mod:`eval_core._util.syntax_digest`: an edit
to it is a new entry); see ``bench/startup.py``. Where nothing is cached (a fresh CI machine),
a lock still spares the parse: it pins each package's *raw* digest (of its bytes) beside its
code digest, and bytes that digest the same are the bytes locked.
"""

from __future__ import annotations

import hashlib
import inspect
import io
import os
import sys
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Literal

from eval_core._util import file_digest
from eval_core._util.entrypoints import dist_info
from eval_core._util.file_digest import FileDigest
from eval_core._util.input_files import NotReadable, decode_json, read_regular
from eval_core._util.limits import TooDeep

_SKIPPED_SUFFIXES = (".pyc", ".pyo")


class CodePrint:
    """``digest``: 16 hex characters; ``raw``: the digest of the files' bytes (what a cache
    keys on: bytes that are the same do the same); ``roots``: where the code lives (for
    file:line); ``source``: ``record`` (a wheel's RECORD) or ``tree`` (an editable install's
    sources). ``digest`` is found when first asked for: a plug-in whose code digest nothing
    pins or shows (a Host's other than the Sweep's) is never parsed, only read."""

    __slots__ = ("_digest", "_found", "files", "raw", "roots", "source")

    def __init__(
        self,
        roots: tuple[str, ...],
        source: Literal["record", "tree"],
        found: list[tuple[str, FileDigest]],
    ) -> None:
        self._digest: str | None = None
        self._found: list[tuple[str, FileDigest]] | None = found
        self.roots, self.source, self.files = roots, source, len(found)
        self.raw = _combine((key, file.raw) for key, file in found)

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = _code_digest(self._found or [], self.raw)
            self._found = None
        return self._digest

    def _key(self) -> tuple[str, tuple[str, ...], str, int]:
        return (self.digest, self.roots, self.source, self.files)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodePrint) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"CodePrint(digest={self.digest!r}, roots={self.roots!r}, source={self.source!r}, "
            f"files={self.files!r})"
        )


def fingerprint(distribution: str, plugin: object) -> CodePrint:
    """The code of ``distribution``, whose plug-in object (a module, mostly) is ``plugin``."""
    return fingerprint_at(distribution, code_roots(plugin))


def fingerprint_at(distribution: str, roots: tuple[str, ...]) -> CodePrint:
    """The code of ``distribution`` whose package lives at ``roots`` (nothing is imported)."""
    files, source = _files(distribution, roots)
    return _digest(files, roots, source)


def content_digest(distribution: str, plugin: object) -> str:
    """The digest of the bytes of ``distribution``'s files, found as :func:`fingerprint` finds
    them: what a cache keys on (nothing is parsed; a prose edit only costs a miss)."""
    files, _ = _files(distribution, code_roots(plugin))
    found = [(key, FileDigest(path)) for key, path in sorted(files)]
    for _, file in found:
        file.keep_raw()  # the next command reads none of them
    file_digest.CACHE.save()
    return _combine((key, file.raw) for key, file in found)


def _files(
    distribution: str, roots: tuple[str, ...]
) -> tuple[list[tuple[str, str]], Literal["record", "tree"]]:
    info = dist_info(distribution)
    if info is not None and not _editable(info):
        recorded = _recorded(info)
        if recorded:
            return recorded, "record"
    return _tree(roots), "tree"


def _editable(info: str) -> bool:
    try:
        loaded = decode_json(read_regular(os.path.join(info, "direct_url.json"), 1 << 20))
    except (NotReadable, TooDeep, ValueError):  # msgspec's errors are ValueErrors
        return False
    return bool(isinstance(loaded, dict) and loaded.get("dir_info", {}).get("editable"))


def _recorded(info: str) -> list[tuple[str, str]]:
    """``(key, absolute path)`` of every installed file the RECORD lists, code and data."""
    import csv

    try:
        text = read_regular(os.path.join(info, "RECORD"), 64 << 20).decode("utf-8")
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except (NotReadable, UnicodeDecodeError, csv.Error):
        return []
    base = os.path.dirname(info)
    found: list[tuple[str, str]] = []
    for row in rows:
        parts = PurePosixPath(row[0]).parts if row and row[0] else ()
        if not parts or parts[0] == ".." or parts[0].endswith((".dist-info", ".data")):
            continue
        if len(parts) == 1 and parts[0].endswith(".pth"):
            continue
        if "__pycache__" in parts or parts[-1].endswith(_SKIPPED_SUFFIXES):
            continue
        key = "/".join(parts)
        found.append((key, os.path.join(base, *parts)))
    return found


def code_roots(plugin: object) -> tuple[str, ...]:
    """The package directories (or the module file) the plug-in object's code lives in."""
    name = plugin.__name__ if inspect.ismodule(plugin) else type(plugin).__module__
    top = sys.modules.get(name.partition(".")[0])
    if top is None:
        return ()
    paths = getattr(top, "__path__", None)
    if paths is not None:
        return tuple(str(Path(p).resolve()) for p in paths)
    file = getattr(top, "__file__", None)
    return (str(Path(file).resolve()),) if file else ()


def module_roots(module: str) -> tuple[str, ...]:
    """What :func:`code_roots` says of a plug-in in ``module``, found without importing it
    (the top-level package's spec: its directories, or its one file)."""
    from importlib.util import find_spec

    top = sys.modules.get(module.partition(".")[0])
    if top is not None:
        paths = getattr(top, "__path__", None)
        if paths is not None:
            return tuple(str(Path(p).resolve()) for p in paths)
        file = getattr(top, "__file__", None)
        return (str(Path(file).resolve()),) if file else ()
    try:
        spec = find_spec(module.partition(".")[0])  # a top-level name imports nothing
    except (ImportError, ValueError):
        return ()
    if spec is None:
        return ()
    if spec.submodule_search_locations is not None:
        return tuple(str(Path(p).resolve()) for p in spec.submodule_search_locations)
    return (str(Path(spec.origin).resolve()),) if spec.origin else ()


def _tree(roots: tuple[str, ...]) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for root in roots:
        base = Path(root)
        if base.is_file():
            found.append((base.name, str(base)))
            continue
        for directory, subdirs, files in os.walk(base):
            subdirs[:] = [d for d in subdirs if d != "__pycache__" and not d.startswith(".")]
            rel = Path(directory).relative_to(base.parent).as_posix()
            for file in files:
                if file.startswith(".") or file.endswith(_SKIPPED_SUFFIXES):
                    continue
                found.append((f"{rel}/{file}", os.path.join(directory, file)))
    return found


def _digest(
    files: list[tuple[str, str]], roots: tuple[str, ...], source: Literal["record", "tree"]
) -> CodePrint:
    """The files' raw digest now (each file's from the cache while it is unchanged, else from
    its bytes, which are then kept), their code digest when first asked for
    (:func:`_code_digest`)."""
    found = [(key, FileDigest(path)) for key, path in sorted(files)]
    for _, file in found:
        file.keep_raw()  # the next command reads none of them, digested or not
    file_digest.CACHE.save()
    return CodePrint(roots, source, found)


def _code_digest(found: list[tuple[str, FileDigest]], raw: str) -> str:
    """Each file's digest from the cache while it is unchanged. When all the bytes are those a
    lock pinned (:func:`remember`), the pinned digest is the answer and nothing is parsed (a
    fresh machine checking a locked Corpus); else the files the cache does not know are
    parsed."""
    missed = [file for _, file in found if file.digest is None]
    pinned = _PINNED.get(raw) if missed else None
    asked = [f for _, f in found if f.digest is None or f.path not in file_digest.CACHE.fresh]
    if asked:  # what this process digested itself is no use of the cache
        from eval_core._util import cache_use, cachedir

        hits = len(asked) if pinned is not None else sum(f.digest is not None for f in asked)
        cache_use.note("code-digests", cache_use.share(hits, len(asked), cachedir.enabled()))
    if pinned is None:
        for file in missed:
            file.normalise()
        digest = _combine((key, str(file.digest)) for key, file in found)
    else:
        digest = pinned
    file_digest.CACHE.save()
    _RAW[digest] = raw
    return digest


def _combine(parts: Iterable[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for key, value in parts:
        digest.update(key.encode())
        digest.update(b"\0")
        digest.update(value.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


_PINNED: dict[str, str] = {}  # the raw digest of a package's files -> its code digest
_RAW: dict[str, str] = {}  # a code digest computed here -> the raw digest of its files


def remember(pins: Iterable[tuple[str, str]]) -> None:
    """``(raw, code)`` pairs a lock pinned: files whose bytes digest to ``raw`` are the ones
    locked, so their code digest is ``code`` without parsing them (bytes, unlike prose, cannot
    differ and give the same ``raw``)."""
    _PINNED.update((raw, code) for raw, code in pins if raw and code)


def raw_of(code: str) -> str:
    """The raw digest (of the bytes) of the files whose code digest this process computed as
    ``code``; empty when it computed none (what a lock pins beside the code digest)."""
    return _RAW.get(code, "")
