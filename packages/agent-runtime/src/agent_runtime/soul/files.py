"""Reading the Soul's files: regular files inside the Soul, bounded in size, YAML without anchors.

A Soul is configuration a Turn trusts, and its tree can hold anything a checkout can: a link to
a file outside it (edited there, unseen by whoever reviews the Soul), a named pipe that blocks
whoever opens it, a device that never ends, an alias chain that expands into gigabytes. Each is
refused with a reason before anything is read: :func:`check_tree` once per load, then
:func:`read_text` and :func:`load_yaml` for each file read.
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1 << 20
"""A Soul file larger than this (1 MiB) is refused: a Soul is prose and small YAML."""
MAX_ENTRIES = 10_000
MAX_YAML_DEPTH = 64
SKIPPED = frozenset({".git"})
"""Directories the tree check does not walk: the Soul repository's own store."""


@functools.cache
def _yaml() -> Any:
    """PyYAML, imported when a document is first parsed (a Soul kept by a Host's cache is never
    parsed, and importing PyYAML costs more than decoding that Soul)."""
    import yaml

    return yaml


def _loader() -> Any:
    """libyaml's parser when it is installed: a durable Turn reloads the Soul, so this is hot."""
    yaml = _yaml()
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SoulFileError(ValueError):
    """A Soul file that may not be read: ``path`` and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def check_tree(root: Path) -> None:
    """Every entry of the Soul is a directory or a regular file, and every link stays inside.
    Read from the directory entries' own types: a Soul this size costs no ``stat`` but links'."""
    top = root.resolve()
    pending, seen = [root], 0
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                listed = list(entries)
        except OSError as error:
            raise SoulFileError(root, f"unreadable: {error}") from None
        for entry in listed:
            seen += 1
            if seen > MAX_ENTRIES:
                raise SoulFileError(root, f"more than {MAX_ENTRIES} entries: not a Soul")
            path = Path(entry.path)
            if entry.is_symlink():
                _check_link(path, top)  # its target is walked where it really is
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED:
                    pending.append(path)
            elif not entry.is_file(follow_symlinks=False):
                raise SoulFileError(path, "not a regular file (a named pipe, socket or device)")


def _check_link(path: Path, top: Path) -> None:
    try:
        target = path.resolve(strict=True)
        mode = target.stat().st_mode
    except (OSError, RuntimeError) as error:
        raise SoulFileError(path, f"unreadable: {error}") from None
    if not target.is_relative_to(top):
        raise SoulFileError(path, f"links outside the Soul (to {target})")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise SoulFileError(path, "not a regular file (a named pipe, socket or device)")


def read_text(file: Path) -> str:
    """A regular file's text, refused past :data:`MAX_FILE_BYTES`, never opened if it is not
    a regular file (opening a named pipe blocks)."""
    try:
        info = file.stat()
        if not stat.S_ISREG(info.st_mode):
            raise SoulFileError(file, "not a regular file (a named pipe, socket or device)")
        if info.st_size > MAX_FILE_BYTES:
            raise SoulFileError(file, f"{info.st_size} bytes: over the {MAX_FILE_BYTES} limit")
        with file.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise SoulFileError(file, f"unreadable: {error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise SoulFileError(file, f"over the {MAX_FILE_BYTES} byte limit")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SoulFileError(file, f"unreadable: not UTF-8 ({error})") from None


def load_yaml(text: str) -> Any:
    """One YAML document, refused (``yaml.YAMLError``) when it uses an anchor or an alias or
    nests deeper than :data:`MAX_YAML_DEPTH`: what a Soul means is what it spells out.

    A text with no ``&`` or ``*`` has no anchor or alias, and one with few collection
    indicators cannot nest deep (every collection owns at least one of ``-:?[{``): it is
    loaded without the event pass, as most of a Soul's small files are."""
    yaml, loader = _yaml(), _loader()
    if "&" not in text and "*" not in text and sum(map(text.count, "-:?[{")) <= MAX_YAML_DEPTH:
        return yaml.load(text, Loader=loader)
    opens = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
    closes = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.YAMLError("anchors and aliases are not allowed in the Soul: spell it out")
        if isinstance(event, opens):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise yaml.YAMLError(f"nested deeper than {MAX_YAML_DEPTH} levels")
        elif isinstance(event, closes):
            depth -= 1
    return yaml.load(text, Loader=loader)
