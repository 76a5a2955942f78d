"""The pinned plug-in set: ``eval.lock`` records which plug-ins a Corpus was written against.

A release pins its plug-ins: ``eval lock`` writes the installed set (each entry point's
distribution, version, the fingerprint of its installed code and the schema of each kind and
field); ``eval check`` and ``eval sweep`` refuse a different installed set, naming each
difference and its next step, unless ``--unlocked``. Code is pinned, not prose: a scorer edited
without a version bump is a difference; a reworded docstring is not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from eval_core._case.case import json_name
from eval_core._plugins.plugin_set import PluginSet
from eval_core._util.atomic import write_atomic
from eval_core._util.code import raw_of, remember
from eval_core._util.input_files import InputRefused, read_json_input

LOCK_NAME = "eval.lock"
LOCK_VERSION = 2


class LockedPlugin(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    distribution: str
    version: str
    entry_point: str
    code: str = ""
    code_bytes: str = ""
    """The digest of the code's bytes: a fresh machine whose files digest to it knows ``code``
    without parsing them (see :func:`seed`); a prose edit moves it, and only costs a parse."""
    kinds: dict[str, str] = msgspec.field(default_factory=dict)
    fields: dict[str, str] = msgspec.field(default_factory=dict)


class Lock(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    lock_version: int
    plugins: list[LockedPlugin]


class LockError(Exception):
    """The lock file is unreadable, or the installed plug-ins differ from it."""


def hosts_by_plugin(plugins: PluginSet) -> dict[str, set[str]]:
    """Which Hosts each entry point (``distribution:entry point``) offers, imported or not."""
    offered: dict[str, set[str]] = {}
    for host, owner in plugins.host_owner.items():
        offered.setdefault(owner, set()).add(host)
    for name, (_, manifest) in plugins.pending.items():
        offered.setdefault(name, set()).update(manifest.hosts)
    return offered


def current(plugins: PluginSet, host: str | None = None) -> Lock:
    """The installed set as a lock pins it. With ``host``, an entry point that offers only
    other Hosts (no kind, no field) is left out: its hooks act only for its own Host, so a
    Corpus swept on ``host`` is the same whether it is installed or not (a team's framework
    Host need not be installed to sweep the shipped Corpus)."""
    offered = hosts_by_plugin(plugins) if host is not None else {}
    rows = []
    for info in plugins.plugins:
        hosts = offered.get(f"{info.distribution}:{info.entry_point}")
        if hosts and host not in hosts and not info.kinds and not info.fields:
            continue
        rows.append(
            LockedPlugin(
                distribution=info.distribution,
                version=info.version,
                entry_point=info.entry_point,
                code=info.code,
                code_bytes=raw_of(info.code),
                kinds={k: plugins.schemas()[k] for k in info.kinds},
                fields={json_name(f): plugins.schemas()[f"field:{f}"] for f in info.fields},
            )
        )
    rows.sort(key=lambda r: (r.distribution, r.entry_point))
    return Lock(lock_version=LOCK_VERSION, plugins=rows)


def encode(lock: Lock) -> bytes:
    return msgspec.json.format(msgspec.json.encode(lock, order="sorted"), indent=2) + b"\n"


def write(path: Path, plugins: PluginSet, host: str) -> Lock:
    """Pin ``plugins`` for Sweeps on ``host`` (see :func:`current`)."""
    lock = current(plugins, host)
    write_atomic(path, encode(lock))
    return lock


def seed(path: Path) -> None:
    """Let the code fingerprints of the plug-ins this lock pins be known from their bytes
    (:func:`eval_core._util.code.remember`); a lock that cannot be read seeds nothing (what
    is wrong with it is said by the lock check)."""
    try:
        locked = msgspec.json.decode(read_json_input(path), type=Lock)
    except (InputRefused, msgspec.MsgspecError):
        return
    remember((plugin.code_bytes, plugin.code) for plugin in locked.plugins)


def read(path: Path) -> Lock:
    if not path.exists() and not path.is_symlink():
        raise LockError(f"{path}: no lock file; run `eval lock` to pin the plug-in set")
    try:
        data = read_json_input(path)
    except InputRefused as exc:
        raise LockError(str(exc)) from None
    version = _version(data)
    if version is not None and version != LOCK_VERSION:
        older = " (it pins no code fingerprints)" if version < LOCK_VERSION else ""
        raise LockError(
            f"{path}: lock version {version}{older}, expected {LOCK_VERSION}: run `eval lock` "
            "to re-pin the installed plug-ins"
        )
    try:
        return msgspec.json.decode(data, type=Lock)
    except msgspec.MsgspecError as exc:
        raise LockError(f"{path}: not a valid eval.lock: {exc}") from None


def _version(data: bytes) -> int | None:
    try:
        found = msgspec.json.decode(data, type=dict[str, Any]).get("lockVersion")
    except msgspec.MsgspecError:
        return None
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def schemas(lock: Lock) -> dict[str, str]:
    """``kind or field -> schema fingerprint`` as the lock pins them."""
    return {
        name: digest for p in lock.plugins for name, digest in (*p.kinds.items(), *p.fields.items())
    }


def owners(lock: Lock) -> dict[str, str]:
    """``kind or field -> "distribution version"`` as the lock pins them."""
    found: dict[str, str] = {}
    for plugin in lock.plugins:
        for name in (*plugin.kinds, *plugin.fields):
            found[name] = f"{plugin.distribution} {plugin.version}"
    return found


def differences(locked: Lock, installed: Lock) -> list[str]:
    """Every way the installed plug-in set differs from the lock, one line each, each with its
    next step. A distribution's version or code is said once, however many entry points."""

    def key(plugin: LockedPlugin) -> tuple[str, str]:
        return (plugin.distribution, plugin.entry_point)

    before = {key(p): p for p in locked.plugins}
    after = {key(p): p for p in installed.plugins}
    lines: list[str] = []
    for k in sorted(before.keys() - after.keys()):
        old = before[k]
        pin = f"{old.distribution}=={old.version}"
        lines.append(
            f"{old.distribution} {old.version} (entry point {k[1]!r}) is locked but not "
            f"installed: install it ({pin}); if the Corpus no longer needs it, `eval lock` "
            "re-pins without it"
        )
    for k in sorted(after.keys() - before.keys()):
        lines.append(
            f"{k[0]} {after[k].version} (entry point {k[1]!r}) is installed but not locked: "
            "`eval lock` pins it (or uninstall it)"
        )
    said: set[str] = set()
    for k in sorted(before.keys() & after.keys()):
        old, new = before[k], after[k]
        dist = k[0]
        if dist not in said and old.version != new.version:
            said.add(dist)
            lines.append(
                f"{dist}: locked {old.version}, installed {new.version}: `eval lock` pins "
                f"{new.version} (the corpusHash moves with it), or install {dist}=={old.version}"
            )
        elif dist not in said and old.code != new.code:
            said.add(dist)
            lines.append(
                f"{dist} {new.version}: its installed code differs from the lock (code "
                f"{old.code or 'not pinned'} locked, {new.code} installed) though its version "
                "did not change: a changed measuring stick must say so; bump its version and "
                "run `eval lock`, or reinstall the build the lock pins"
            )
        for what, a, b in (("kind", old.kinds, new.kinds), ("field", old.fields, new.fields)):
            for name in sorted(a.keys() - b.keys()):
                lines.append(
                    f"{dist}: {what} {name!r} is locked but no longer provided: a Case using it "
                    "is refused; `eval lock` re-pins once the Corpus no longer uses it"
                )
            for name in sorted(b.keys() - a.keys()):
                lines.append(f"{dist}: {what} {name!r} is provided but not locked: `eval lock`")
            for name in sorted(a.keys() & b.keys()):
                if a[name] != b[name]:
                    lines.append(
                        f"{dist}: {what} {name!r} changed its schema: bump {dist}'s version and "
                        "run `eval lock`"
                    )
    return lines
