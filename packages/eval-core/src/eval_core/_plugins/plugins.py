"""The plug-in manager: discovers entry points, records who shipped what, refuses conflicts.

Discovery is the ``eval.plugins`` entry-point group. Every plug-in is recorded with its
distribution name, version and the fingerprint of its installed code (:mod:`eval_core._util.code`):
that is what ``eval.lock`` and the Scorecard pin. A plug-in that implements no hook, a function
named like a hook but not marked ``@hookimpl``, or a hookimpl no hookspec declares (a misspelt
``def eval_kind``) is refused, naming it; so is a hook that raises (:mod:`eval_core._util.guard`).
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import msgspec
import pluggy

from eval_core._case.case import CaseBase, CaseField, build_case_type, json_name
from eval_core._case.kinds import KindSpec
from eval_core._case.sections import Section
from eval_core._case.witness import WITNESSES, WitnessCheck
from eval_core._plugins import hookspecs
from eval_core._plugins.fixtures import Registered, TrialFixture
from eval_core._plugins.hookspecs import OWN_CASES
from eval_core._plugins.host import HostFactory, LoadContext
from eval_core._plugins.model_source import ModelSource
from eval_core._util.code import CodePrint, code_roots
from eval_core._util.code import fingerprint as code_fingerprint
from eval_core._util.entrypoints import entry_points
from eval_core._util.guard import Origin, PluginFault, call, fault

if TYPE_CHECKING:
    from eval_core._running.scorecard import Scorecard

GROUP = "eval.plugins"
GENERIC_FIELDS = frozenset(CaseBase.__struct_fields__)


class PluginError(Exception):
    """A plug-in that cannot be used: broken, or in conflict with another."""


@dataclass(frozen=True, slots=True)
class PluginInfo:
    """One registered plug-in: its entry point and the distribution that shipped it."""

    entry_point: str
    distribution: str
    version: str
    kinds: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    code: str = ""
    origin: Origin = field(default_factory=lambda: Origin("", ""))

    @property
    def label(self) -> str:
        return f"{self.distribution} {self.version} (entry point {self.entry_point!r})"


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


@dataclass(slots=True)
class PluginSet:
    """The installed plug-ins, their kinds, Case fields and Hosts."""

    manager: pluggy.PluginManager
    plugins: list[PluginInfo] = field(default_factory=list)
    kinds: dict[str, KindSpec] = field(default_factory=dict)
    kind_owner: dict[str, PluginInfo] = field(default_factory=dict)
    fields: dict[str, CaseField] = field(default_factory=dict)
    field_owner: dict[str, PluginInfo] = field(default_factory=dict)
    hosts: dict[str, HostFactory] = field(default_factory=dict)
    fixtures: list[Registered] = field(default_factory=list)
    witness_checks: list[WitnessCheck] = field(default_factory=list)
    model_source: ModelSource | None = None
    model_source_owner: PluginInfo | None = None
    _case_type: type[CaseBase] | None = None
    _checks: list[tuple[Any, frozenset[str] | None]] | None = None
    _hooks: dict[str, list[Any]] = field(default_factory=dict)
    _origins: dict[str, Origin] = field(default_factory=dict)
    _schemas: dict[str, str] | None = None

    @property
    def case_type(self) -> type[CaseBase]:
        if self._case_type is None:
            structs = [spec.struct for spec in self.kinds.values()]
            self._case_type = build_case_type(structs, list(self.fields.values()))
        return self._case_type

    def check_case(
        self, case: CaseBase, context: LoadContext, uses: frozenset[str] | None = None
    ) -> list[tuple[str, str]]:
        """Every plug-in's cross-field rules for one Case; a raising check is itself a problem
        (naming the plug-in, its version and where it raised), never a crash. ``uses`` (the
        Case's plug-in fields and kinds) skips the checks marked
        :func:`~eval_core._plugins.hookspecs.
        own_cases` of plug-ins the Case does not use."""
        problems: list[tuple[str, str]] = []
        if self._checks is None:
            self._checks = [
                (impl, self._owned(impl))
                for impl in self.manager.hook.eval_check_case.get_hookimpls()
            ]
        for impl, owned in self._checks:
            if owned is not None and uses is not None and owned.isdisjoint(uses):
                continue
            try:
                found = cast(
                    Iterable[tuple[str, str]], impl.function(case=case, context=context) or ()
                )
                problems.extend((str(path), str(reason)) for path, reason in found)
            except Exception as exc:  # a plug-in bug must not hide the Corpus's other problems
                what = "eval_check_case"
                problems.append(("$", str(fault(self.origin(impl), what, exc, impl.function))))
        return problems

    def _owned(self, impl: Any) -> frozenset[str] | None:
        """The fields and kinds of a check marked ``own_cases`` (None: it sees every Case)."""
        if not getattr(impl.function, OWN_CASES, False):
            return None
        distribution, _, entry_point = str(impl.plugin_name).partition(":")
        for info in self.plugins:
            if (info.distribution, info.entry_point) == (distribution, entry_point):
                return frozenset(info.fields) | frozenset(info.kinds)
        return None

    def origin(self, impl: Any) -> Origin:
        """Who registered a hookimpl (its distribution, version and code roots)."""
        found = self._origins.get(impl.plugin_name)
        if found is None:
            distribution, _, entry_point = str(impl.plugin_name).partition(":")
            found = Origin(str(impl.plugin_name), "(not registered)")
            for info in self.plugins:
                if (info.distribution, info.entry_point) == (distribution, entry_point):
                    found = info.origin
            self._origins[impl.plugin_name] = found
        return found

    def _impls(self, hook: str) -> list[Any]:
        cached = self._hooks.get(hook)
        if cached is None:
            cached = self._hooks[hook] = list(getattr(self.manager.hook, hook).get_hookimpls())
        return cached

    def _label(self, impl: Any) -> str:
        distribution, _, entry_point = str(impl.plugin_name).partition(":")
        for info in self.plugins:
            if (info.distribution, info.entry_point) == (distribution, entry_point):
                return info.label
        return str(impl.plugin_name)

    def variants(self, case: CaseBase) -> list[tuple[str, Any]]:
        """Every plug-in's derived Cases of ``case``: ``(plug-in label, document)`` pairs; a
        plug-in that raises gives ``(label, a PluginFault)`` for the loader to report."""
        found: list[tuple[str, Any]] = []
        for impl in self._impls("eval_variants"):
            try:
                found.extend((self._label(impl), doc) for doc in impl.function(case=case) or ())
            except Exception as exc:
                found.append((self._label(impl), fault(self.origin(impl), "eval_variants", exc)))
        return found

    def probabilistic(self, case: CaseBase) -> bool:
        """Whether a plug-in says the Case measures a rate rather than a gate. The loader asks
        first, so a raising hook is a refusal at load (a :class:`PluginFault`)."""
        return any(
            call(self.origin(impl), "eval_probabilistic", impl.function, case)
            for impl in self._impls("eval_probabilistic")
        )

    def sections(self, card: Scorecard, cases: Sequence[CaseBase]) -> list[Section]:
        """Every plug-in's section of a finished Sweep; one that raises blocks clearing."""
        return self._sections("eval_scorecard_sections", card=card, cases=cases)

    def matrix_sections(self, cards: Sequence[Scorecard]) -> list[Section]:
        return self._sections("eval_matrix_sections", cards=cards)

    def _sections(self, hook: str, **kwargs: Any) -> list[Section]:
        found: list[Section] = []
        for impl in self._impls(hook):
            label = self._label(impl)
            try:
                made = list(impl.function(**kwargs) or ())
                bad = [s for s in made if not isinstance(s, Section)]
                if bad:
                    raise TypeError(f"{hook} returned {bad[0]!r}, not a Section")
            except Exception as exc:
                reason = (
                    f"plug-in {label} could not summarise the Sweep: {type(exc).__name__}: {exc}"
                )
                made = [Section(name=label, reasons=[reason])]
            found.extend(made)
        return found

    def schemas(self) -> dict[str, str]:
        """The schema fingerprint of every kind (by name) and field (``field:`` + name).

        Deriving them costs about 40 ms of every command, and they change only with code: so
        they are kept under :func:`eval_core._util.cachedir.cache_dir`, keyed by Python, msgspec,
        the core's and every plug-in's code and every installed distribution's version."""
        if self._schemas is None:
            self._schemas = _stored_schemas(self)
        return self._schemas

    def fingerprint(self, kinds: Iterable[str], fields: Iterable[str]) -> list[dict[str, Any]]:
        """Distribution, version, code and schema of every used kind and field (corpusHash)."""
        rows: list[dict[str, Any]] = []
        for name in sorted(set(kinds)):
            owner = self.kind_owner[name]
            rows.append(
                {
                    "kind": name,
                    "distribution": owner.distribution,
                    "version": owner.version,
                    "code": owner.code,
                    "schema": self.schemas()[name],
                }
            )
        for name in sorted(set(fields)):
            owner = self.field_owner[name]
            rows.append(
                {
                    "field": json_name(name),
                    "distribution": owner.distribution,
                    "version": owner.version,
                    "code": owner.code,
                    "schema": self.schemas()[f"field:{name}"],
                }
            )
        return rows


def _stored_schemas(plugins: PluginSet) -> dict[str, str]:
    import json
    import sys

    from eval_core._util import checked
    from eval_core._util.cachedir import cache_dir
    from eval_core._util.entrypoints import installed

    rows = sorted((p.distribution, p.version, p.entry_point, p.code) for p in plugins.plugins)
    head = [sys.version_info[:2], msgspec.__version__, checked.core_code(), rows, installed()]
    key = hashlib.sha256(msgspec.json.encode(head)).hexdigest()[:32]
    path = cache_dir() / "schemas" / f"{key}.json"
    wanted = [*plugins.kinds, *(f"field:{name}" for name in plugins.fields)]
    if checked.enabled():
        try:
            stored = json.loads(path.read_bytes())
        except (OSError, ValueError):
            stored = None
        if isinstance(stored, dict) and all(isinstance(stored.get(n), str) for n in wanted):
            return {name: stored[name] for name in wanted}
    found = {name: kind_schema_hash(spec) for name, spec in plugins.kinds.items()}
    found.update({f"field:{n}": field_schema_hash(f) for n, f in plugins.fields.items()})
    if checked.enabled():
        with contextlib.suppress(OSError):
            checked.replace(path, json.dumps(found, sort_keys=True).encode())
        checked.prune(path.parent, 16)
    return found


def _plugin_manager() -> pluggy.PluginManager:
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    return manager


def discover() -> list[tuple[str, str, str, object]]:
    """Load every entry point of the group: ``(entry point, distribution, version, plugin)``.

    A plug-in that fails to import is a :class:`PluginError` naming its distribution and entry
    point, never a silent omission: a Corpus measured without its kinds is not the same Corpus.
    """
    found: list[tuple[str, str, str, object]] = []
    seen: set[tuple[str, str]] = set()
    for ep in entry_points(GROUP):
        distribution, version = ep.distribution, ep.version
        if (distribution, ep.name) in seen:
            continue  # the same distribution visible twice on sys.path
        seen.add((distribution, ep.name))
        try:
            plugin = ep.load()
        except Exception as exc:
            what = f"entry point {ep.name!r} ({ep.value}), loading,"
            problem = fault(Origin(distribution, version), what, exc)
            raise PluginError(f"{problem}: the plug-in is broken") from exc
        found.append((ep.name, distribution, version, plugin))
    return found


def build(plugins: Iterable[tuple[str, str, str, object]]) -> PluginSet:
    """Register plug-ins and collect their kinds, fields and Hosts, refusing every conflict."""
    manager = _plugin_manager()
    result = PluginSet(manager=manager)
    codes: dict[tuple[str, tuple[str, ...]], CodePrint] = {}
    for ep_name, distribution, version, plugin in plugins:
        name = f"{distribution}:{ep_name}"
        label = f"{distribution} {version} (entry point {ep_name!r})"
        key = (distribution, code_roots(plugin))
        code = codes.get(key) or codes.setdefault(key, code_fingerprint(distribution, plugin))
        origin = Origin(distribution, version, code.roots)
        try:
            manager.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plug-in {label} is refused: {exc}") from None
        _check_hooks(manager, plugin, origin, label)
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
            kinds=tuple(_kind(spec, label).name for spec in kinds),
            fields=tuple(_field(f, label).name for f in fields),
            code=code.digest,
            origin=origin,
        )
        for spec in kinds:
            if spec.name in result.kinds:
                other = result.kind_owner[spec.name]
                raise PluginError(
                    f"kind {spec.name!r} is claimed twice: by {other.label} and by {label}"
                )
            _reserved(spec.name, "kind", distribution, label)
            object.__setattr__(spec, "origin", origin)
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
            _reserved(case_field.name, "Case field", distribution, label)
            object.__setattr__(case_field, "origin", origin)
            result.fields[case_field.name] = case_field
            result.field_owner[case_field.name] = info
        for host_name, factory in _mapping(hosts, label).items():
            if host_name in result.hosts:
                raise PluginError(f"Host {host_name!r} is registered twice (second: {label})")
            result.hosts[host_name] = factory
        owned = [_fixture(f, label) for f in fixtures]
        for fixture in owned:
            if fixture.field is not None and fixture.field not in info.fields:
                raise PluginError(
                    f"plug-in {label}: fixture {fixture.name!r} serves the Case field "
                    f"{fixture.field!r}, which this plug-in does not contribute"
                )
        result.fixtures.extend(Registered(f, origin) for f in sorted(owned, key=lambda f: f.name))
        for check in checks:
            if not isinstance(check, WitnessCheck):
                raise PluginError(
                    f"plug-in {label} returned {check!r} from eval_witness_checks, "
                    "not a WitnessCheck"
                )
            object.__setattr__(check, "origin", origin)
            result.witness_checks.append(check)
        if source is not None:
            checked = _source(source, label)
            if result.model_source_owner is not None:
                first = result.model_source_owner.label
                raise PluginError(f"a model source is provided twice: by {first} and by {label}")
            result.model_source, result.model_source_owner = checked, info
        result.plugins.append(info)
    try:
        manager.check_pending()
    except pluggy.PluginValidationError as exc:  # _check_hooks names it first; a backstop
        raise PluginError(f"plug-in set refused: {exc}") from None
    return result


HOOKS = tuple(sorted(n for n in vars(hookspecs) if n.startswith("eval_")))
RESERVED_PREFIX = "eval_"
"""Kind and Case-field names starting ``eval_`` are reserved for this project's own
distributions (named ``eval-*``); a third party prefixes its names with its own."""


def _check_hooks(manager: pluggy.PluginManager, plugin: object, origin: Origin, label: str) -> None:
    """Refuse what pluggy would silently ignore: no hook at all, a hookimpl no hookspec
    declares (``def eval_kind``), or a function named like a hook without ``@hookimpl``."""
    callers = manager.get_hookcallers(plugin) or []
    for caller in callers:
        if not caller.has_spec():
            impl = next(i for i in caller.get_hookimpls() if i.plugin is plugin)
            raise PluginError(
                f"plug-in {label} implements {caller.name!r}, which is not a hook"
                f"{_did_you_mean(caller.name)}{_at(impl.function, origin)}"
            )
    marked = {caller.name for caller in callers}
    for attr, value in _own_functions(plugin):
        if attr.startswith("eval_") and attr not in marked:
            hint = (
                "mark it @hookimpl (from eval_core._plugins.hookspecs import hookimpl)"
                if attr in HOOKS
                else f"it is not a hook{_did_you_mean(attr)}, and not marked @hookimpl"
            )
            raise PluginError(f"plug-in {label} defines {attr}: {hint}{_at(value, origin)}")
    if not callers:
        raise PluginError(
            f"plug-in {label} registers no hook: implement one of {', '.join(HOOKS)}, "
            "marked @hookimpl (from eval_core._plugins.hookspecs import hookimpl)"
        )


def _own_functions(plugin: object) -> list[tuple[str, Any]]:
    """The functions (or methods) the plug-in itself defines, not ones it imported."""
    if inspect.ismodule(plugin):
        return [
            (name, value)
            for name, value in vars(plugin).items()
            if inspect.isfunction(value) and value.__module__ == plugin.__name__
        ]
    return [
        (name, value) for name, value in vars(type(plugin)).items() if inspect.isfunction(value)
    ]


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name, HOOKS, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def _at(function: object, origin: Origin) -> str:
    from eval_core._util.guard import defined_at

    where = defined_at(function, origin)
    return f" (at {where})" if where else ""


def _reserved(name: str, what: str, distribution: str, label: str) -> None:
    if name.startswith(RESERVED_PREFIX) and not distribution.startswith("eval-"):
        raise PluginError(
            f"plug-in {label}: {what} {name!r} uses the reserved prefix {RESERVED_PREFIX!r}; "
            "prefix it with your distribution's name instead"
        )


def load_plugins() -> PluginSet:
    """The installed plug-in set."""
    return build(discover())


def _call(manager: pluggy.PluginManager, plugin: object, hook: str, origin: Origin) -> Any:
    """Call one plug-in's implementation of a hook (results stay attributed to it); a hook
    that raises is a :class:`~eval_core._util.guard.PluginFault` naming the plug-in and the line."""
    for impl in getattr(manager.hook, hook).get_hookimpls():
        if impl.plugin is plugin:
            return call(origin, hook, impl.function)
    return None


def _kind(spec: object, label: str) -> KindSpec:
    if not isinstance(spec, KindSpec):
        raise PluginError(f"plug-in {label} returned {spec!r} from eval_kinds, not a KindSpec")
    if spec.witness is not None and spec.witness not in WITNESSES:
        raise PluginError(
            f"plug-in {label}: kind {spec.name!r} names the witness {spec.witness!r}; "
            f"a witness is one of {', '.join(WITNESSES)}"
        )
    return spec


def _field(case_field: object, label: str) -> CaseField:
    if not isinstance(case_field, CaseField):
        raise PluginError(
            f"plug-in {label} returned {case_field!r} from eval_case_fields, not a CaseField"
        )
    return case_field


def _fixture(fixture: object, label: str) -> TrialFixture:
    if not isinstance(fixture, TrialFixture):
        raise PluginError(
            f"plug-in {label} returned {fixture!r} from eval_fixtures, not a TrialFixture"
        )
    return fixture


def _source(source: object, label: str) -> ModelSource:
    if not all(callable(getattr(source, m, None)) for m in ("open_leg", "judge")):
        raise PluginError(
            f"plug-in {label} returned {source!r} from eval_models, not a model source "
            "(open_leg, judge)"
        )
    return cast(ModelSource, source)


def _mapping(hosts: object, label: str) -> Mapping[str, HostFactory]:
    if not isinstance(hosts, Mapping):
        raise PluginError(f"plug-in {label} returned {hosts!r} from eval_hosts, not a mapping")
    return hosts
