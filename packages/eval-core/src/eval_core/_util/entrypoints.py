"""Entry points (and metadata directories) read straight from the installed ``*.dist-info``.

``importlib.metadata`` costs about 50 ms of every ``eval`` command (its import pulls in the
``email`` package, and listing entry points parses every distribution's METADATA). This reads
the same files the same way for the few groups ``eval`` uses: each directory of ``sys.path`` in
order, the first distribution of a (normalised) name wins, ``entry_points.txt`` parsed as the
packaging specification says, and METADATA's ``Name``/``Version`` headers read only for a
distribution that declares one of our groups. A scan (about 5 ms) is reused while
``sys.path`` and the modification times of its directories stay the same, so a distribution
installed or put on ``sys.path`` later is seen, as with ``importlib.metadata``.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from functools import lru_cache

_DIST_DIR = (".dist-info", ".egg-info")
_NORMALISE = re.compile(r"[-_.]+")


class EntryPoint:
    """One entry point and the distribution that declares it. A plain class: ``eval --help``
    reads these, and a dataclass costs a millisecond of start-up to create."""

    __slots__ = ("distribution", "group", "name", "value", "version")

    def __init__(self, name: str, value: str, group: str, distribution: str, version: str) -> None:
        self.name, self.value, self.group = name, value, group
        self.distribution, self.version = distribution, version

    def _key(self) -> tuple[str, str, str, str, str]:
        return (self.name, self.value, self.group, self.distribution, self.version)

    def __repr__(self) -> str:
        return (
            f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r}, "
            f"distribution={self.distribution!r}, version={self.version!r})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EntryPoint) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, "version"):  # set once, by __init__ (the last field it sets)
            raise AttributeError(f"EntryPoint is frozen: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def load(self) -> object:
        """Import ``module`` and walk ``:attr.path`` (extras in brackets are ignored)."""
        module, _, attr = self.value.partition(":")
        target: object = importlib.import_module(module.strip())
        for part in attr.split("[", 1)[0].strip().split(".") if attr else ():
            target = getattr(target, part)
        return target


def entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of ``group`` (one of the ``eval.`` groups), sorted by (name, value)."""
    return sorted(
        (ep for ep in _scan(_stamp())[0] if ep.group == group), key=lambda e: (e.name, e.value)
    )


def _stamp() -> tuple[tuple[str, int], ...]:
    stamp = []
    for entry in sys.path:
        try:
            stamp.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            continue
    return tuple(stamp)


def dist_info(distribution: str) -> str | None:
    """The metadata directory of the installed ``distribution`` (first on ``sys.path``)."""
    return _scan(_stamp())[1].get(_normalise(distribution))


def installed() -> list[str]:
    """Every installed distribution's metadata directory name (name and version), sorted."""
    return list(_installed(_stamp()))


@lru_cache(maxsize=8)
def _installed(stamp: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """:func:`installed` for one scan (each cache key asks for it: sorted once a scan)."""
    return tuple(sorted(os.path.basename(path) for path in _scan(stamp)[1].values()))


def version(distribution: str) -> str | None:
    """The installed version of ``distribution``, ``None`` when it is not installed."""
    info = dist_info(distribution)
    if info is None:
        return None
    meta = _headers(
        _read(os.path.join(info, "METADATA")) or _read(os.path.join(info, "PKG-INFO")) or ""
    )
    return meta.get("version")


def _normalise(name: str) -> str:
    return _NORMALISE.sub("_", name).lower()


@lru_cache(maxsize=8)
def _scan(stamp: tuple[tuple[str, int], ...]) -> tuple[tuple[EntryPoint, ...], dict[str, str]]:
    found: list[EntryPoint] = []
    directories: dict[str, str] = {}
    for entry, _ in stamp:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue  # a zip archive
        for name in names:
            if not name.endswith(_DIST_DIR):
                continue
            key = _normalise(name.rpartition(".")[0].split("-", 1)[0])
            if key in directories:
                continue
            directories[key] = os.path.join(entry or ".", name)
            found.extend(_declared(directories[key]))
    return tuple(found), directories


def _declared(directory: str) -> list[EntryPoint]:
    text = _read(os.path.join(directory, "entry_points.txt"))
    if text is None or "[eval." not in text:
        return []
    headers = _read(os.path.join(directory, "METADATA")) or _read(
        os.path.join(directory, "PKG-INFO")
    )
    meta = _headers(headers or "")
    distribution, version = meta.get("name", "unknown"), meta.get("version", "0")
    out: list[EntryPoint] = []
    group = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
        elif "=" in line and group.startswith("eval."):
            name, _, value = line.partition("=")
            out.append(EntryPoint(name.strip(), value.strip(), group, distribution, version))
    return out


def _headers(text: str) -> dict[str, str]:
    """``Name`` and ``Version`` from the header block of a METADATA file."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line:
            break  # the body (the long description) begins
        key, _, value = line.partition(":")
        if key.lower() in ("name", "version") and key.lower() not in out:
            out[key.lower()] = value.strip()
    return out


def _read(path: str) -> str | None:
    from eval_core._util.input_files import NotReadable, read_regular

    try:  # installed metadata, read by the bounded reader all the same (a FIFO never blocks)
        return read_regular(path, 16 << 20).decode("utf-8")
    except (NotReadable, UnicodeDecodeError):
        return None
