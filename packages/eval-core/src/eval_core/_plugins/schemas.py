"""Schema fingerprints: what the lock and the corpusHash pin of a kind or Case field.

A fingerprint is the hash of the type's JSON Schema without its prose, so a reworded docstring
moves neither; deriving them all costs every command tens of milliseconds, so the set of them
is kept in the cache directory, keyed by everything they could change with.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import TYPE_CHECKING, Any

import msgspec

from eval_core._case.case import CaseField
from eval_core._case.kinds import KindSpec

if TYPE_CHECKING:
    from eval_core._plugins.plugin_set import PluginSet


ANNOTATIONS = frozenset({"title", "description", "examples", "$comment", "deprecated"})

_SUBSCHEMA_MAPS = frozenset({"properties", "$defs", "patternProperties", "dependentSchemas"})


def structural(schema: Any) -> Any:
    """A JSON Schema without its prose (titles, descriptions, examples): what it accepts.

    A docstring on an Expectation class or a reworded description changes no Case's meaning,
    so it must move neither the lock nor the corpusHash. Property names are kept (a field
    called ``description`` is structure).
    """
    if isinstance(schema, list):
        return [structural(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ANNOTATIONS:
            continue
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            kept[key] = {name: structural(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "default", "discriminator"):
            kept[key] = value
        else:
            kept[key] = structural(value)
    return kept


@cache
def _schema_hash(type_: Any) -> str:
    """A short, stable fingerprint of a type's JSON Schema without its prose, canonically
    encoded. Cached: the lock check and corpusHash both ask for it on every command's start.
    """
    schema = structural(msgspec.json.schema(type_))
    return hashlib.sha256(msgspec.json.encode(schema, order="sorted")).hexdigest()[:16]


def kind_schema_hash(spec: KindSpec) -> str:
    return _schema_hash(spec.struct)


def field_schema_hash(case_field: CaseField) -> str:
    return _schema_hash(case_field.type)


def stored_schemas(plugins: PluginSet) -> dict[str, str]:
    """Every kind's and field's schema fingerprint: a pending plug-in's from its manifest."""
    kept = {n: d for _, m in plugins.pending.values() for n, d in m.kinds.items()}
    kept.update((f"field:{n}", d) for _, m in plugins.pending.values() for n, d in m.fields.items())
    return {**kept, **_imported_schemas(plugins)}


_MAX_ENTRY_BYTES = 4 << 20  # schema fingerprints: a few KB; a larger entry is a miss
_READ: dict[str, tuple[tuple[int, ...], dict[str, str]]] = {}
"""Each entry this process read or wrote, by path, with the file's stamp then: a Sweep asks
again each time it imports a pending plug-in (six times for the synthetic Corpus), and an
entry whose file is unchanged is not read, unsealed and decoded again."""


def _stamp(path: Any) -> tuple[int, ...] | None:
    import os

    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_size, found.st_ino, found.st_ctime_ns)


def _load(path: Any) -> Any:
    """The entry at ``path``: as this process last read or wrote it while its file is
    unchanged, else read (sealed, bounded: :mod:`eval_core._util.cache_entry`)."""
    from eval_core._util import cache_entry

    stamp = _stamp(path)
    kept = _READ.get(str(path))
    if stamp is not None and kept is not None and kept[0] == stamp:
        return dict(kept[1])
    stored = cache_entry.load(path, dict[str, str], _MAX_ENTRY_BYTES, json=True)
    if stamp is not None and isinstance(stored, dict):
        _READ[str(path)] = (stamp, dict(stored))
    return stored


def _kept(path: Any, entry: dict[str, str]) -> None:
    stamp = _stamp(path)
    if stamp is not None:
        _READ[str(path)] = (stamp, dict(entry))


def _imported_schemas(plugins: PluginSet) -> dict[str, str]:
    import json

    from eval_core._util import cache_entry, cache_use, cachedir, checked
    from eval_core._util.cache_key import common
    from eval_core._util.cachedir import cache_dir
    from eval_core._util.entrypoints import installed

    rows = sorted((p.distribution, p.version, p.entry_point, p.raw) for p in plugins.plugins)
    head = [*common(), rows, installed()]
    key = hashlib.sha256(msgspec.json.encode(head)).hexdigest()[:32]
    path = cache_dir() / "schemas" / f"{key}.json"
    wanted = [*plugins.kinds, *(f"field:{name}" for name in plugins.fields)]
    stored: Any = None
    if cachedir.enabled():
        stored = _load(path)
        if isinstance(stored, dict) and all(isinstance(stored.get(n), str) for n in wanted):
            cache_use.note("schemas", "hit")
            return {name: stored[name] for name in wanted}
    cache_use.note("schemas", "miss" if cachedir.enabled() else "off")
    found = {name: kind_schema_hash(spec) for name, spec in plugins.kinds.items()}
    found.update({f"field:{n}": field_schema_hash(f) for n, f in plugins.fields.items()})
    if cachedir.enabled():  # a set with some plug-ins pending adds to what a fuller one kept
        kept = (
            {k: v for k, v in stored.items() if isinstance(v, str)}
            if isinstance(stored, dict)
            else {}
        )
        entry = {**kept, **found}
        if cache_entry.write_entry(path, json.dumps(entry, sort_keys=True).encode()):
            _kept(path, entry)
        checked.prune(path.parent, 16)
    return found
