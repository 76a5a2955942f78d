"""The plug-in set opened for one Corpus: only the plug-ins its Cases use are imported.

Importing every installed family costs most of a command's start-up (issue 32). Each plug-in's
:mod:`~eval_core._plugins.manifest` says what it contributes without importing it, so a command
that opens a Corpus reads the Case files' kinds and top-level keys (a regular expression and a
shallow decode, no validation: the loader does that), imports the plug-ins that own them, and
keeps the others pending: their rows (code, kinds, fields, schemas) still answer the lock check
and the checked-Corpus cache, and a hook that must see every Case imports its plug-in when it is
first asked for (:class:`~eval_core._plugins.plugin_set.PluginSet`). A plug-in without a kept
manifest is imported at once and its manifest written. Whatever cannot be read this way (a YAML
Case, an escaped key, a name no manifest knows) opens the whole set, as before, so every refusal
reads as it always did.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import msgspec

from eval_core._case.case import json_name
from eval_core._plugins import manifest
from eval_core._plugins.hookspecs import owned_by
from eval_core._plugins.manifest import Manifest
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.plugins import (
    GENERIC_FIELDS,
    PluginError,
    _plugin_manager,
    build,
    installed_entries,
    load_entry,
    register,
)
from eval_core._plugins.registered import PluginInfo
from eval_core._util import file_digest
from eval_core._util.code import CodePrint, fingerprint_at, module_roots
from eval_core._util.entrypoints import EntryPoint
from eval_core._util.guard import Origin
from eval_core._util.input_files import NotReadable, decode_json, read_regular
from eval_core._util.layout import RED_TEAM, SOUL
from eval_core._util.limits import TooDeep

_KIND = re.compile(rb'"kind"\s*:\s*"([^"\\]{1,200})"')
_TOP = msgspec.json.Decoder(dict[str, msgspec.Raw])
_MAX_SCANNED = 8 << 20  # a larger Case file is left to the loader, with the whole set open
_AT_LOAD = ("eval_fixtures", "eval_check_case", "eval_variants", "eval_probabilistic")
_NOT_PER_CASE = ("eval_kinds", "eval_case_fields", "eval_hosts")  # asked for by name


def load_all() -> PluginSet:
    """Every installed plug-in imported, and each one's manifest kept for the next command."""
    entries = installed_entries()
    found = build([load_entry(ep) for ep in entries])
    _keep(found, entries)
    return found


def load_for(corpus: Path) -> PluginSet:
    """The plug-in set with only what ``corpus``'s Cases use imported (see the module)."""
    from eval_core._util import cache_use, cachedir
    from eval_core._util.cachedir import keep_out_of

    souls = [d for d in (Path(corpus) / SOUL, Path(corpus).parent / SOUL) if d.is_dir()]
    keep_out_of(Path(corpus), *souls[:1])  # no manifest is kept inside the Corpus or its Soul
    used = _scan(Path(corpus))
    if used is None:
        return load_all()
    kinds, keys = used
    entries = installed_entries()
    found = PluginSet(manager=_plugin_manager(), suite=_suite(Path(corpus)))
    missing: list[EntryPoint] = []
    tops: dict[str, tuple[str, ...]] = {}  # entry points share packages: each found once
    with file_digest.CACHE.batch():  # one save of the digests' cache, not one per package
        rows = [_fingerprinted(found, ep, tops) for ep in entries]
    for ep, roots, printed in rows:
        kept = manifest.read(_key(ep, printed.raw))
        if kept is not None and (kept.entry_point, kept.value, kept.distribution) != (
            ep.name,
            ep.value,
            ep.distribution,
        ):
            kept = None  # another entry point's manifest, grafted under this key: a miss
        elif kept is not None and (kept.version, kept.code) != (ep.version, printed.raw):
            kept = None
        found.plugins.append(_row(ep, kept, printed, roots))
        if kept is None:
            missing.append(ep)
        else:
            found.pending[_name(ep)] = (ep, kept)
    hits = len(entries) - len(missing)
    cache_use.note("manifests", cache_use.share(hits, len(entries), cachedir.enabled()))
    if missing:
        register(found, [load_entry(ep) for ep in missing])
        found.forget()
        _keep(found, missing)
    known = {json_name(f) for f in found.fields}
    known.update(json_name(f) for _, m in found.pending.values() for f in m.fields)
    known.update(json_name(f) for f in GENERIC_FIELDS)
    if not keys <= known:
        found.import_named(list(found.pending))  # an unknown key: refused as a full load refuses it
        return found
    by_json = {json_name(f): f for _, m in found.pending.values() for f in m.fields}
    found.require([*kinds, *(by_json[k] for k in keys if k in by_json)])
    for hook in _AT_LOAD:  # before the Case type is built from the kinds and fields imported
        found.need(hook)
    if _derives(found, {*kinds, *keys}):
        found.import_named(list(found.pending))  # a derived Case may use any kind
    return found


def _fingerprinted(
    found: PluginSet, ep: EntryPoint, tops: dict[str, tuple[str, ...]]
) -> tuple[EntryPoint, tuple[str, ...], CodePrint]:
    """The entry point, its package's roots and its code's fingerprint (kept on ``found``,
    which :func:`~eval_core._plugins.plugins.register` reuses when the plug-in is imported;
    its code digest is parsed only when asked for)."""
    top = ep.value.partition(":")[0].strip().partition(".")[0]
    roots = tops.get(top)
    if roots is None:
        roots = tops[top] = module_roots(top)
    printed = found.prints.get((ep.distribution, roots))
    if printed is None:
        printed = found.prints[ep.distribution, roots] = fingerprint_at(ep.distribution, roots)
    return ep, roots, printed


def _derives(found: PluginSet, used: set[str]) -> bool:
    """Whether a plug-in may derive Cases from this Corpus: one implementing ``eval_variants``
    whose names the Corpus uses, or any in the red-team suite (the variants' own kinds are
    only known once derived, so the whole set is then imported)."""
    if found.suite == RED_TEAM:
        return bool(found.manager.hook.eval_variants.get_hookimpls())
    for impl in found.manager.hook.eval_variants.get_hookimpls():
        distribution, _, entry_point = str(impl.plugin_name).partition(":")
        for info in found.plugins:
            if (info.distribution, info.entry_point) == (distribution, entry_point):
                names = {*info.kinds, *(json_name(f) for f in info.fields)}
                if not names.isdisjoint(used):
                    return True
    return False


def import_pending(found: PluginSet, names: Iterable[str]) -> None:
    """Import pending plug-ins into ``found``, refusing one whose code disagrees with its
    manifest (one line: the plug-in, what differs, and that it is refused)."""
    taken = [found.pending.pop(n) for n in names if n in found.pending]
    register(found, [load_entry(ep) for ep, _ in taken])
    found.forget()
    for ep, kept in taken:
        actual = of(found, ep)
        problem = manifest.disagreement(kept, actual)
        if problem is not None:
            raise PluginError(
                f"plug-in {ep.distribution} {ep.version} (entry point {ep.name!r}) is refused: "
                f"its manifest disagrees with its code: {problem}"
            )


def of(found: PluginSet, ep: EntryPoint) -> Manifest:
    """What a registered plug-in's code contributes, as its manifest says it."""
    info = next(
        p for p in found.plugins if (p.distribution, p.entry_point) == (ep.distribution, ep.name)
    )
    schemas = found.schemas()
    plugin = found.manager.get_plugin(_name(ep))
    hooks: dict[str, list[str]] = {}
    for caller in found.manager.get_hookcallers(plugin) or []:
        if caller.name in _NOT_PER_CASE:
            hooks[caller.name] = []
            continue
        predicates: list[object]
        if caller.name == "eval_fixtures":
            predicates = [
                r.fixture.applies
                for r in found.found_fixtures
                if r.plugin == _name(ep) and r.fixture.applies is not None
            ]
        else:
            predicates = [i.function for i in caller.get_hookimpls() if i.plugin is plugin]
        suites: set[str] = set()
        for function in predicates:
            owned = owned_by(function)
            suites.update([manifest.EVERY] if owned is None else owned)
        hooks[caller.name] = sorted(suites)
    return Manifest(
        entry_point=ep.name,
        value=ep.value,
        distribution=ep.distribution,
        version=ep.version,
        code=info.raw,
        kinds={k: schemas[k] for k in info.kinds},
        fields={f: schemas[f"field:{f}"] for f in info.fields},
        hooks=hooks,
        hosts=sorted(h for h, owner in found.host_owner.items() if owner == _name(ep)),
    )


def _keep(found: PluginSet, entries: Iterable[EntryPoint]) -> None:
    for ep in entries:
        made = of(found, ep)
        name = _key(ep, made.code)  # the bytes' digest: see Manifest.code
        if manifest.read(name) != made:
            manifest.write(name, made)


def _key(ep: EntryPoint, code: str) -> str:
    return manifest.key(ep.name, ep.value, ep.distribution, ep.version, code)


def _name(ep: EntryPoint) -> str:
    return f"{ep.distribution}:{ep.name}"


def _row(
    ep: EntryPoint, kept: Manifest | None, printed: CodePrint, roots: tuple[str, ...]
) -> PluginInfo:
    return PluginInfo(
        entry_point=ep.name,
        distribution=ep.distribution,
        version=ep.version,
        kinds=tuple(kept.kinds) if kept else (),
        fields=tuple(kept.fields) if kept else (),
        printed=printed,
        origin=Origin(ep.distribution, ep.version, roots),
    )


def _suite(corpus: Path) -> str:
    return RED_TEAM if corpus.name == RED_TEAM else "capability"


def _scan(corpus: Path) -> tuple[set[str], set[str]] | None:
    """Every ``kind`` value and top-level key of the Corpus's Case files, or ``None`` when a
    file cannot be read this way (the whole set is then opened)."""
    try:
        names = os.listdir(corpus)
    except OSError:
        return None
    kinds: set[str] = set()
    keys: set[str] = set()
    for name in names:
        if name.endswith((".yaml", ".yml")):
            return None
        if not name.endswith(".json"):
            continue
        try:  # the one bounded reader: a FIFO never blocks, a large file is not read
            data = read_regular(os.path.join(corpus, name), _MAX_SCANNED)
        except NotReadable:
            return None
        if b"\\u" in data:
            return None
        kinds.update(k.decode(errors="replace") for k in _KIND.findall(data))
        try:
            keys.update(decode_json(data, decoder=_TOP))
        except (msgspec.MsgspecError, TooDeep):
            continue  # the loader refuses it, naming the file (and the path too deep)
    return kinds, keys
