"""A plug-in's manifest: what it contributes, known without importing its code.

A command that opens a Corpus imports only the families its Cases use (issue 32). For that it must
know every installed plug-in's kinds, Case fields, schema fingerprints and hooks before importing
any: each entry point's manifest. A manifest is written the first time the plug-in is imported and
kept under :func:`eval_core._util.cachedir.cache_dir` (read and written as every cache entry is:
:mod:`eval_core._util.cache_entry`), keyed by the content hash of the plug-in's installed files
(the digest of their bytes, :mod:`eval_core._util.code`: never parsed, so a Host's plug-in that
nothing pins is only read), its distribution, version and entry point, the interpreter, msgspec
and the core's version and code (:mod:`eval_core._util.cache_key`): a changed file is a new key, so
a stale manifest is never read. The lock pins the code digest and schemas, so what a lazy load
reports is checked against ``eval.lock`` as a full load is; and when a plug-in is imported after
all, its code is compared with its manifest (:func:`disagreement`), and a plug-in whose manifest
lies is refused.

``hooks`` maps each hook the plug-in implements to the suites in which it must see every Case:
``["*"]`` for a hook not marked :func:`~eval_core._plugins.hookspecs.own_cases` (it sees every
Case of every Corpus, so the plug-in is always imported before it is called), ``[]`` for one that
only concerns Cases using the plug-in's own fields or kinds.
"""

from __future__ import annotations

import hashlib

import msgspec

FORMAT = 4  # bump when a manifest or its entry changes (4: code, the bytes' digest): old never read
EVERY = "*"


class Manifest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One entry point's contributions, as its code said when it was last imported."""

    entry_point: str
    value: str
    distribution: str
    version: str
    code: str
    """The digest of the plug-in's files' bytes (:attr:`~eval_core._plugins.registered.
    PluginInfo.raw`), which its key holds too."""
    kinds: dict[str, str] = msgspec.field(default_factory=dict)
    fields: dict[str, str] = msgspec.field(default_factory=dict)
    hooks: dict[str, list[str]] = msgspec.field(default_factory=dict)
    hosts: list[str] = msgspec.field(default_factory=list)

    def sees_every_case(self, hook: str, suite: str) -> bool:
        """Whether ``hook`` must be called for Cases that use none of this plug-in's names."""
        suites = self.hooks.get(hook)
        return suites is not None and (EVERY in suites or suite in suites)

    def names(self) -> frozenset[str]:
        return frozenset(self.kinds) | frozenset(self.fields)


MAX_ENTRY_BYTES = 4 << 20  # a manifest is a few KB; a larger entry is a miss, never read


def key(entry_point: str, value: str, distribution: str, version: str, code: str) -> str:
    """The cache key of one entry point's manifest: everything that could change it."""
    from eval_core._util.cache_key import common

    head = [
        FORMAT,
        *common(),
        distribution,
        version,
        entry_point,
        value,
        code,
    ]
    return hashlib.sha256(msgspec.json.encode(head)).hexdigest()[:32]


def _path(name: str) -> str:
    import os

    from eval_core._util.cachedir import cache_dir

    return os.path.join(cache_dir(), "manifests", f"{name}.json")


def read(name: str) -> Manifest | None:
    """The kept manifest under ``name`` (a :func:`key`), or ``None``: missing, unreadable or
    not a manifest (then the plug-in is imported, as before manifests existed)."""
    from eval_core._util import cachedir

    if not cachedir.enabled():
        return None
    from eval_core._util import cache_entry

    return cache_entry.load(_path(name), Manifest, MAX_ENTRY_BYTES, json=True)


def write(name: str, manifest: Manifest) -> None:
    """Keep a manifest (a cache: one that cannot be written only costs an import next time)."""
    from eval_core._util import cache_entry

    cache_entry.dump(_path(name), manifest, json=True)


def disagreement(kept: Manifest, actual: Manifest) -> str | None:
    """What the kept manifest says that the plug-in's code does not (one clause), or ``None``."""
    for what, said, found in (
        ("kinds", kept.kinds, actual.kinds),
        ("Case fields", kept.fields, actual.fields),
    ):
        if set(said) != set(found):
            return f"it lists the {what} {sorted(said)}, its code provides {sorted(found)}"
        changed = sorted(n for n in said if said[n] != found[n])
        if changed:
            return f"the schema of {', '.join(changed)} differs from its code's"
    if sorted(kept.hosts) != sorted(actual.hosts):
        return f"it lists the Hosts {sorted(kept.hosts)}, its code provides {actual.hosts}"
    if kept.hooks != actual.hooks:
        return f"it lists the hooks {kept.hooks}, its code implements {actual.hooks}"
    if (kept.code, kept.version) != (actual.code, actual.version):
        return f"it pins code {kept.code} {kept.version}, installed {actual.code} {actual.version}"
    return None
