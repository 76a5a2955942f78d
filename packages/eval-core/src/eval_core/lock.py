"""The pinned plug-in set: ``eval.lock`` records which plug-ins a Corpus was written against.

A release pins its plug-ins: ``eval lock`` writes the installed set; ``eval check`` and
``eval sweep`` refuse a different installed set, naming each difference, unless ``--unlocked``.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from eval_core.atomic import write_atomic
from eval_core.case import json_name
from eval_core.input_files import InputRefused, read_json_input
from eval_core.plugins import PluginSet, field_schema_hash, kind_schema_hash

LOCK_NAME = "eval.lock"
LOCK_VERSION = 1


class LockedPlugin(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    distribution: str
    version: str
    entry_point: str
    kinds: dict[str, str] = msgspec.field(default_factory=dict)
    fields: dict[str, str] = msgspec.field(default_factory=dict)


class Lock(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    lock_version: int
    plugins: list[LockedPlugin]


class LockError(Exception):
    """The lock file is unreadable, or the installed plug-ins differ from it."""


def current(plugins: PluginSet) -> Lock:
    rows = []
    for info in plugins.plugins:
        rows.append(
            LockedPlugin(
                distribution=info.distribution,
                version=info.version,
                entry_point=info.entry_point,
                kinds={k: kind_schema_hash(plugins.kinds[k]) for k in info.kinds},
                fields={json_name(f): field_schema_hash(plugins.fields[f]) for f in info.fields},
            )
        )
    rows.sort(key=lambda r: (r.distribution, r.entry_point))
    return Lock(lock_version=LOCK_VERSION, plugins=rows)


def encode(lock: Lock) -> bytes:
    return msgspec.json.format(msgspec.json.encode(lock, order="sorted"), indent=2) + b"\n"


def write(path: Path, plugins: PluginSet) -> Lock:
    lock = current(plugins)
    write_atomic(path, encode(lock))
    return lock


def read(path: Path) -> Lock:
    if not path.exists() and not path.is_symlink():
        raise LockError(f"{path}: no lock file; run `eval lock` to pin the plug-in set")
    try:
        data = read_json_input(path)
    except InputRefused as exc:
        raise LockError(str(exc)) from None
    try:
        lock = msgspec.json.decode(data, type=Lock)
    except msgspec.MsgspecError as exc:
        raise LockError(f"{path}: not a valid eval.lock: {exc}") from None
    if lock.lock_version != LOCK_VERSION:
        raise LockError(f"{path}: lock version {lock.lock_version}, expected {LOCK_VERSION}")
    return lock


def differences(locked: Lock, installed: Lock) -> list[str]:
    """Every way the installed plug-in set differs from the lock, one line each."""

    def key(plugin: LockedPlugin) -> tuple[str, str]:
        return (plugin.distribution, plugin.entry_point)

    before = {key(p): p for p in locked.plugins}
    after = {key(p): p for p in installed.plugins}
    lines: list[str] = []
    for k in sorted(before.keys() - after.keys()):
        lines.append(f"{k[0]} (entry point {k[1]!r}) is locked but not installed")
    for k in sorted(after.keys() - before.keys()):
        lines.append(
            f"{k[0]} {after[k].version} (entry point {k[1]!r}) is installed but not locked"
        )
    for k in sorted(before.keys() & after.keys()):
        old, new = before[k], after[k]
        if old.version != new.version:
            lines.append(f"{k[0]}: locked {old.version}, installed {new.version}")
        for what, a, b in (("kind", old.kinds, new.kinds), ("field", old.fields, new.fields)):
            for name in sorted(a.keys() - b.keys()):
                lines.append(f"{k[0]}: {what} {name!r} is locked but no longer provided")
            for name in sorted(b.keys() - a.keys()):
                lines.append(f"{k[0]}: {what} {name!r} is provided but not locked")
            for name in sorted(a.keys() & b.keys()):
                if a[name] != b[name]:
                    lines.append(f"{k[0]}: {what} {name!r} changed its schema")
    return lines
