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
interpreter and by this module's own bytes (the normaliser: an edit to it is a new entry); see
``bench/startup.py``. Where nothing is
cached (a fresh CI machine), a lock still spares the parse: it pins each package's *raw* digest
(of its bytes) beside its code digest, and bytes that digest the same are the bytes locked.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import inspect
import io
import os
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from eval_core._util.entrypoints import dist_info
from eval_core._util.input_files import NotReadable, decode_json, read_regular
from eval_core._util.limits import TooDeep

_SKIPPED_SUFFIXES = (".pyc", ".pyo")
_RACY_NS = 2_000_000_000
_FORMAT = (
    4  # bump when the entry changes (4: inode and ctime, keyed by cache_key): old ones ignored
)


@dataclass(frozen=True, slots=True)
class CodePrint:
    """``digest``: 16 hex characters; ``roots``: where the code lives (for file:line);
    ``source``: ``record`` (a wheel's RECORD) or ``tree`` (an editable install's sources)."""

    digest: str
    roots: tuple[str, ...]
    source: Literal["record", "tree"]
    files: int


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
    return _combine((key, _File(path).raw) for key, path in sorted(files))


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
    """Each file's digest from the cache while it is unchanged. The files it does not know are
    read first: when all the bytes are those a lock pinned (:func:`remember`), the pinned
    digest is the answer and nothing is parsed (a fresh machine checking a locked Corpus)."""
    found = [(key, _File(path)) for key, path in sorted(files)]
    raw = _combine((key, file.raw) for key, file in found)
    missed = [file for _, file in found if file.digest is None]
    pinned = _PINNED.get(raw) if missed else None
    asked = [f for _, f in found if f.digest is None or f.path not in _CACHE.fresh]
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
    _CACHE.save()
    _RAW[digest] = raw
    return CodePrint(digest, roots, source, len(files))


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


def normalised(path: str, data: bytes) -> str:
    """The digest of what a file does: a Python file's syntax tree without docstrings (so
    prose and comments never move it), any other file's bytes."""
    if path.endswith(".py"):
        with _no_cycle_collection():
            try:
                tree = ast.parse(data, filename=path)
            except (SyntaxError, ValueError):
                pass
            else:
                return hashlib.sha256(repr(_canonical(tree)).encode()).hexdigest()
    return hashlib.sha256(data).hexdigest()


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """A syntax tree is hundreds of thousands of acyclic objects: the cyclic collector, run
    every few hundred allocations, would cost more than the parse (measured: 2.4x)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _canonical(node: Any) -> Any:
    """A syntax tree as nested tuples: node type and fields, no positions, no docstrings, and
    no empty field (so a field a newer Python adds, empty, changes nothing). The hot loop of a
    cold start (every installed plug-in's files): written for speed, not for ``ast.iter_fields``."""
    if isinstance(node, ast.AST):
        fields = []
        owner = isinstance(node, _DOCSTRING_OWNERS)
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                if owner and name == "body" and value and _is_docstring(value[0]):
                    value = value[1:]
                if value:
                    fields.append((name, tuple([_canonical(item) for item in value])))
            elif isinstance(value, ast.AST):
                fields.append((name, _canonical(value)))
            else:
                fields.append((name, value))
        return (type(node).__name__, tuple(fields))
    return node


_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(first: ast.stmt) -> bool:
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


_MAX_ENTRY_BYTES = 64 << 20  # about 200 bytes a file: far more files than any site holds


@cache
def _normaliser() -> str:
    """The digest of this module's own bytes: the normalisation every cached digest came from."""
    try:
        return hashlib.sha256(read_regular(__file__)).hexdigest()[:16]
    except NotReadable as exc:
        return f"unreadable: {exc}"


def _stamp(stat: os.stat_result) -> list[int]:
    """What says a file is unchanged: mtime, size, inode and change time."""
    return [stat.st_mtime_ns, stat.st_size, stat.st_ino, stat.st_ctime_ns]


class _DigestCache:
    """File digests by path, valid while the file's :func:`_stamp` stays the same: kept for the
    process and in a JSON file shared by every process (written atomically; losing a race only
    costs a re-parse). A file written in the last two seconds is never cached: an edit within
    the clock's tick could keep both (git's racy-clean rule)."""

    def __init__(self) -> None:
        self._entries: dict[str, list[Any]] | None = None
        self._dirty = False
        self.fresh: set[str] = set()  # the paths digested by this process

    @property
    def path(self) -> Path:
        from eval_core._util.cache_key import interpreter
        from eval_core._util.cachedir import cache_dir

        head = f"{_FORMAT}\0{interpreter()}\0{_normaliser()}".encode()
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

    def get(self, path: str, stat: os.stat_result) -> tuple[str, str] | None:
        """The file's (normalised, raw) digests while its :func:`_stamp` is unchanged."""
        found = self.entries().get(path)
        if isinstance(found, list) and len(found) == 6 and found[:4] == _stamp(stat):
            return str(found[4]), str(found[5])
        return None

    def put(self, path: str, stat: os.stat_result, digest: str, raw: str) -> None:
        self.fresh.add(path)
        if time.time_ns() - stat.st_mtime_ns > _RACY_NS:
            self.entries()[path] = [*_stamp(stat), digest, raw]
            self._dirty = True

    def save(self) -> None:
        if not self._dirty or self._entries is None:
            return
        self._dirty = False
        from eval_core._util import cache_entry

        live = {k: v for k, v in self._entries.items() if os.path.exists(k)}
        cache_entry.dump(self.path, live, json=True)  # best effort: a failure is only slower


_CACHE = _DigestCache()


class _File:
    """One file of a package: its raw digest (of the bytes), and its :func:`normalised`
    digest from the cache, or once :meth:`normalise` ran. A file that is gone or unreadable
    digests as its reason (the fingerprint still moves)."""

    __slots__ = ("_data", "_stat", "digest", "path", "raw")

    def __init__(self, path: str) -> None:
        self.path, self._data = path, b""
        self._stat: os.stat_result | None = None
        self.digest: str | None
        try:
            stat = os.stat(path)
        except OSError as exc:
            self.digest = self.raw = f"unreadable: {exc.strerror}"
            return
        cached = _CACHE.get(path, stat)
        if cached is not None:
            self.digest, self.raw = cached
            return
        self.digest = None
        try:  # installed code, read by the bounded reader all the same (a FIFO never blocks)
            self._data = read_regular(path)
        except NotReadable as exc:
            self.digest = self.raw = f"unreadable: {exc}"
            return
        self._stat = stat
        self.raw = hashlib.sha256(self._data).hexdigest()

    def normalise(self) -> None:
        self.digest, self._data = normalised(self.path, self._data), b""
        if self._stat is not None:
            _CACHE.put(self.path, self._stat, self.digest, self.raw)
