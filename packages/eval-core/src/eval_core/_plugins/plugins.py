"""The plug-in manager: discovers entry points, records who shipped what, refuses conflicts.

Discovery is the ``eval.plugins`` entry-point group. Every plug-in is recorded with its
distribution name, version and the fingerprint of its installed code (:mod:`eval_core._util.code`):
that is what ``eval.lock`` and the Scorecard pin. A plug-in that implements no hook, a function
named like a hook but not marked ``@hookimpl``, or a hookimpl no hookspec declares (a misspelt
``def eval_kind``) is refused, naming it (:mod:`eval_core._plugins.hook_checks`); so is a hook
that raises (:mod:`eval_core._util.guard`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pluggy
from msgspec.structs import force_setattr

from eval_core._case.case import CaseBase, json_name
from eval_core._case.witness import WitnessCheck
from eval_core._plugins import hookspecs
from eval_core._plugins.fixtures import OwnedFixture
from eval_core._plugins.hook_checks import (
    HOOKS,
    RESERVED_PREFIX,
    PluginError,
    as_field,
    as_fixture,
    as_kind,
    as_mapping,
    as_source,
    check_hooks,
    reserved,
)
from eval_core._plugins.hookspecs import owned_by
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.registered import PluginInfo
from eval_core._plugins.schemas import field_schema_hash, kind_schema_hash, structural
from eval_core._util.code import code_roots
from eval_core._util.code import fingerprint as code_fingerprint
from eval_core._util.entrypoints import EntryPoint, entry_points
from eval_core._util.guard import Origin, PluginFault, call, fault

__all__ = [  # the plug-in set and its schema fingerprints, importable from here as before
    "GENERIC_FIELDS",
    "GROUP",
    "HOOKS",
    "RESERVED_PREFIX",
    "PluginError",
    "PluginInfo",
    "PluginSet",
    "build",
    "discover",
    "field_schema_hash",
    "kind_schema_hash",
    "load_plugins",
    "structural",
]

GROUP = "eval.plugins"

GENERIC_FIELDS = frozenset(CaseBase.__struct_fields__)


def _plugin_manager() -> pluggy.PluginManager:
    from eval_core._plugins.manager import Manager

    manager = Manager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    return manager


def discover() -> list[tuple[str, str, str, object]]:
    """Load every entry point of the group: ``(entry point, distribution, version, plugin)``.

    A plug-in that fails to import is a :class:`PluginError` naming its distribution and entry
    point, never a silent omission: a Corpus measured without its kinds is not the same Corpus.
    """
    return [load_entry(ep) for ep in installed_entries()]


def installed_entries() -> list[EntryPoint]:
    """Every entry point of the group, once each (a distribution may be on sys.path twice)."""
    found: list[EntryPoint] = []
    seen: set[tuple[str, str]] = set()
    for ep in entry_points(GROUP):
        if (ep.distribution, ep.name) not in seen:
            seen.add((ep.distribution, ep.name))
            found.append(ep)
    return found


def load_entry(ep: EntryPoint) -> tuple[str, str, str, object]:
    """Import one entry point's plug-in; a failure is a :class:`PluginError` naming it."""
    try:
        plugin = ep.load()
    except Exception as exc:
        what = f"entry point {ep.name!r} ({ep.value}), loading,"
        problem = fault(Origin(ep.distribution, ep.version), what, exc)
        raise PluginError(f"{problem}: the plug-in is broken") from exc
    return (ep.name, ep.distribution, ep.version, plugin)


def build(plugins: Iterable[tuple[str, str, str, object]]) -> PluginSet:
    """Register plug-ins and collect their kinds, fields and Hosts, refusing every conflict."""
    result = PluginSet(manager=_plugin_manager())
    register(result, plugins)
    return result


def register(result: PluginSet, plugins: Iterable[tuple[str, str, str, object]]) -> None:
    """Add plug-ins to a set (a new one, or one holding others pending), refusing conflicts."""
    manager = result.manager
    codes = result.prints  # what this load digested already (its manifests' lookup)
    for ep_name, distribution, version, plugin in plugins:
        name = f"{distribution}:{ep_name}"
        label = f"{distribution} {version} (entry point {ep_name!r})"
        key = (distribution, code_roots(plugin))
        code = codes.get(key)
        if code is None:
            code = codes[key] = code_fingerprint(distribution, plugin)
        origin = Origin(distribution, version, code.roots)
        try:
            manager.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plug-in {label} is refused: {exc}") from None
        check_hooks(manager, plugin, origin, label)
        try:
            kinds = list(_call(manager, plugin, "eval_kinds", origin) or [])
            fields = list(_call(manager, plugin, "eval_case_fields", origin) or [])
            hosts = _call(manager, plugin, "eval_hosts", origin) or {}
            fixtures = list(_call(manager, plugin, "eval_fixtures", origin) or [])
            checks = list(_call(manager, plugin, "eval_witness_checks", origin) or [])
            source = _call(manager, plugin, "eval_models", origin)
        except PluginFault as exc:
            raise PluginError(f"{exc} (entry point {ep_name!r})") from exc
        except TypeError as exc:  # a hook returned something that is not a list
            raise PluginError(f"plug-in {label} is broken: {exc}") from exc
        info = PluginInfo(
            entry_point=ep_name,
            distribution=distribution,
            version=version,
            kinds=tuple(as_kind(spec, label).name for spec in kinds),
            fields=tuple(as_field(f, label).name for f in fields),
            printed=code,
            origin=origin,
        )
        for spec in kinds:
            if spec.name in result.kinds:
                other = result.kind_owner[spec.name]
                raise PluginError(
                    f"kind {spec.name!r} is claimed twice: by {other.label} and by {label}"
                )
            reserved(spec.name, "kind", distribution, label)
            force_setattr(spec, "origin", origin)
            result.kinds[spec.name] = spec
            result.kind_owner[spec.name] = info
        for case_field in fields:
            if case_field.name in GENERIC_FIELDS:
                raise PluginError(
                    f"plug-in {label} shadows the generic Case field {case_field.name!r}"
                )
            if case_field.name in result.fields:
                other = result.field_owner[case_field.name]
                raise PluginError(
                    f"Case field {json_name(case_field.name)!r} is claimed twice: "
                    f"by {other.label} and by {label}"
                )
            reserved(case_field.name, "Case field", distribution, label)
            force_setattr(case_field, "origin", origin)
            result.fields[case_field.name] = case_field
            result.field_owner[case_field.name] = info
        for host_name, factory in as_mapping(hosts, label).items():
            if host_name in result.host_factories:
                raise PluginError(f"Host {host_name!r} is registered twice (second: {label})")
            result.host_factories[host_name] = factory
            result.host_owner[host_name] = name
        owned = [as_fixture(f, label) for f in fixtures]
        for fixture in owned:
            if fixture.field is not None and fixture.field not in info.fields:
                raise PluginError(
                    f"plug-in {label}: fixture {fixture.name!r} serves the Case field "
                    f"{fixture.field!r}, which this plug-in does not contribute"
                )
        names = frozenset(info.fields) | frozenset(info.kinds)
        result.found_fixtures.extend(
            OwnedFixture(f, origin, names if owned_by(f.applies) is not None else None, name)
            for f in sorted(owned, key=lambda f: f.name)
        )
        for check in checks:
            if not isinstance(check, WitnessCheck):
                raise PluginError(
                    f"plug-in {label} returned {check!r} from eval_witness_checks, "
                    "not a WitnessCheck"
                )
            force_setattr(check, "origin", origin)
            result.found_checks.append(check)
        if source is not None:
            checked = as_source(source, label)
            if result.source_owner is not None:
                first = result.source_owner.label
                raise PluginError(f"a model source is provided twice: by {first} and by {label}")
            result.source, result.source_owner = checked, info
        _listed(result, info)
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:  # _check_hooks names it first; a backstop
        raise PluginError(f"plug-in set refused: {exc}") from None


def _listed(result: PluginSet, info: PluginInfo) -> None:
    """Record a registered plug-in in place of its pending manifest's row, if it had one."""
    for at, row in enumerate(result.plugins):
        if (row.distribution, row.entry_point) == (info.distribution, info.entry_point):
            result.plugins[at] = info
            return
    result.plugins.append(info)


def load_plugins(corpus: Path | None = None) -> PluginSet:
    """The installed plug-in set; for a ``corpus``, with only the plug-ins its Cases use
    imported, the others known by their manifests (:mod:`eval_core._plugins.lazy`)."""
    from eval_core._plugins import lazy
    from eval_core._util import collector

    try:
        return lazy.load_for(corpus) if corpus is not None else lazy.load_all()
    finally:
        collector.resume()  # start-up is over: what it made is frozen (see the module)


def _call(manager: pluggy.PluginManager, plugin: object, hook: str, origin: Origin) -> Any:
    """Call one plug-in's implementation of a hook (results stay attributed to it); a hook
    that raises is a :class:`~eval_core._util.guard.PluginFault` naming the plug-in and the line."""
    for impl in getattr(manager.hook, hook).get_hookimpls():
        if impl.plugin is plugin:
            return call(origin, hook, impl.function)
    return None
