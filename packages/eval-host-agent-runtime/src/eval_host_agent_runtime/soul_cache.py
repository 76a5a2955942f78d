"""The loaded Eval Soul kept between commands: a scripted Sweep decodes it, never parses YAML.

Every ``eval check`` and ``eval sweep`` builds the Host, and the Host loads the Eval Soul with
the runtime's own loader: its YAML parse and PyYAML's import are most of a small Sweep's start.
What :func:`agent_runtime.soul.loader.load_soul` returns is a function of what it reads: every entry
under the Soul directory (path, type, bytes; a link by its target), the directory's own name
(the Soul records it), the runtime's code and this package's, PyYAML's version (the parse), and
what every cache key holds (the interpreter, msgspec, the core: the directory
:func:`eval_core.hosts.plugin_cache` gives is named by them). So a Soul that loaded is kept under
:func:`eval_core.hosts.plugin_cache`, keyed by a digest of all of those, and only after it was
checked to decode equal to what loaded. A refusal is never kept (it is computed afresh, so its
message is today's); a missing, corrupt, foreign or oversized entry is a miss, never an error.
Entries are read and written as every cache entry is (``read_cache_entry`` and
``write_cache_entry`` of :mod:`eval_core.hosts`: a regular file reached without a link, size-capped
before reading, sealed by its content's digest, written whole or not at all), and an entry is
taken only under its own key: one grafted from another Soul, or rewritten, is a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from agent_runtime.guards.guardrails import GuardrailConfig
from agent_runtime.mcp.integrations import McpTool
from agent_runtime.soul import files as soul_files
from agent_runtime.soul.loader import Agent, Business, Skill, Soul, load_soul
from eval_core.hosts import (
    NotReadable,
    plugin_cache,
    read_cache_entry,
    read_regular,
    version,
    write_cache_entry,
)

FORMAT = 3  # bump when what is stored, or how a key is made, changes (3: cache_key.common)
CACHE_NAME = "agent-runtime-soul"
KEPT = 8
"""Entries kept; the least recently written beyond them are removed."""
MAX_ENTRY_BYTES = 4 << 20
"""An entry larger than this is a miss, never read: no Soul this cache keeps is near it."""


class Stored(msgspec.Struct, frozen=True):
    """One kept Soul, all but its root (the key names it). Routines are their own MessagePack,
    decoded only when there are any: a Soul with none never imports the Routine runner."""

    key: str
    agents: dict[str, Agent]
    guardrails: GuardrailConfig
    skills: dict[str, Skill]
    business: Business
    integrations: dict[str, McpTool]
    routines: bytes = b""


def cached_soul(soul_dir: Path, code: Callable[[], str]) -> Soul:
    """The Soul ``load_soul(soul_dir)`` returns, decoded from the cache when its key matches;
    ``code`` is the runtime's code digest, asked only when the cache is on."""
    directory = plugin_cache(CACHE_NAME)
    if directory is None:
        return load_soul(soul_dir)
    key = soul_key(soul_dir, code())
    if key is None:  # a tree the cache cannot key is the loader's to refuse or load
        return load_soul(soul_dir)
    path = directory / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.bin"
    kept = _read(path, key, soul_dir)
    if kept is not None:
        return kept
    soul = load_soul(soul_dir)
    _write(path, key, soul)
    return soul


def soul_key(soul_dir: Path, code: str) -> str | None:
    """The digest of everything the loader reads, or ``None`` for a tree it would refuse (a
    pipe, a device, a file past the loader's size limit, too many entries, unreadable)."""
    digest = hashlib.sha256()
    head = [FORMAT, f"pyyaml {version('pyyaml')}", code, str(soul_dir)]
    digest.update(msgspec.json.encode(head))
    root = Path(soul_dir)
    pending, seen = [root], 0
    try:
        while pending:
            folder = pending.pop()
            with os.scandir(folder) as listed:
                entries = sorted(listed, key=lambda e: e.name)
            for entry in entries:
                seen += 1
                if seen > soul_files.MAX_ENTRIES:
                    return None
                rel = Path(entry.path).relative_to(root).as_posix().encode()
                if entry.is_symlink():
                    target = Path(entry.path).resolve(strict=True)
                    digest.update(b"l\0%s\0%s\0" % (rel, str(target).encode()))
                elif entry.is_dir(follow_symlinks=False):
                    if entry.name not in soul_files.SKIPPED:
                        digest.update(b"d\0%s\0" % rel)
                        pending.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    data = _file_bytes(entry.path)
                    if data is None:
                        return None
                    digest.update(b"f\0%s\0%d\0" % (rel, len(data)))
                    digest.update(data)
                else:
                    return None
    except (OSError, RuntimeError, ValueError):
        return None
    return digest.hexdigest()


def _file_bytes(path: str) -> bytes | None:
    """A Soul file's bytes (``None`` past the loader's limit or for no regular file: the
    loader then refuses it). The bounded reader: a FIFO never blocks."""
    try:
        return read_regular(path, soul_files.MAX_FILE_BYTES)
    except NotReadable:
        return None


def _read(path: Path, key: str, soul_dir: Path) -> Soul | None:
    data = read_cache_entry(path, MAX_ENTRY_BYTES)
    if data is None:
        return None
    try:
        stored = msgspec.msgpack.decode(data, type=Stored)
        if stored.key != key:
            return None
        return _soul(Path(soul_dir), stored)
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError):
        return None


def _soul(root: Path, stored: Stored) -> Soul:
    routines: dict[str, Any] = {}
    if stored.routines:
        from agent_runtime.routines.definitions import Routine

        routines = msgspec.msgpack.decode(stored.routines, type=dict[str, Routine])
    return Soul(
        root,
        stored.agents,
        stored.guardrails,
        stored.skills,
        routines,
        stored.business,
        stored.integrations,
    )


def _write(path: Path, key: str, soul: Soul) -> None:
    """Keep a Soul that decodes equal to what loaded (a value MessagePack cannot carry
    exactly, such as a YAML date, is never kept); a cache that cannot be written is no error."""
    try:
        stored = Stored(
            key=key,
            agents=soul.agents,
            guardrails=soul.guardrails,
            skills=soul.skills,
            business=soul.business,
            integrations=soul.integrations,
            routines=msgspec.msgpack.encode(soul.routines) if soul.routines else b"",
        )
        data = msgspec.msgpack.encode(stored)
        if len(data) > MAX_ENTRY_BYTES or _soul(soul.root, _decoded(data)) != soul:
            return
    except (msgspec.MsgspecError, RecursionError, OverflowError, TypeError, ValueError):
        return
    if write_cache_entry(path, data):
        _prune(path.parent)


def _decoded(data: bytes) -> Stored:
    return msgspec.msgpack.decode(data, type=Stored)


def _prune(directory: Path) -> None:
    """Remove the oldest entries beyond :data:`KEPT` (never an error)."""
    try:
        entries = [
            (e.stat().st_mtime_ns, e.path)
            for e in os.scandir(directory)
            if e.name.endswith(".bin") and e.is_file()
        ]
    except OSError:
        return
    for _, path in sorted(entries, reverse=True)[KEPT:]:
        with contextlib.suppress(OSError):
            os.unlink(path)
