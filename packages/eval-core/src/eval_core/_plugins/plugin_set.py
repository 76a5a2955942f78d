"""The installed plug-in set: who shipped which kinds, Case fields, Hosts and fixtures, and
the hooks the loader and the Scorecard ask of it (each guarded: a plug-in that raises is named,
never a crash). It is built by :func:`eval_core._plugins.plugins.build`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import msgspec
import pluggy

from eval_core._case.case import CaseBase, CaseField, build_case_type, json_name
from eval_core._case.kinds import KindSpec
from eval_core._case.sections import Section
from eval_core._case.witness import WitnessCheck
from eval_core._plugins.fixtures import OwnedFixture, uses_any
from eval_core._plugins.hookspecs import owned_by
from eval_core._plugins.host import HostFactory, LoadContext
from eval_core._plugins.model_source import ModelSource
from eval_core._plugins.registered import PluginInfo, owned_names, registered
from eval_core._plugins.schemas import stored_schemas
from eval_core._util.guard import Origin, call, fault

if TYPE_CHECKING:
    from eval_core._plugins.manifest import Manifest
    from eval_core._running.scorecard import Scorecard
    from eval_core._util.code import CodePrint
    from eval_core._util.entrypoints import EntryPoint


class _Hosts(Mapping[str, HostFactory]):
    """The Host factories of a plug-in set, pending plug-ins imported by the name asked for."""

    __slots__ = ("_set",)

    def __init__(self, plugins: PluginSet) -> None:
        self._set = plugins

    def __getitem__(self, name: str) -> HostFactory:
        found = self._set
        if name not in found.host_factories:
            found.import_named([n for n, (_, m) in found.pending.items() if name in m.hosts])
        return found.host_factories[name]

    def __iter__(self) -> Iterator[str]:
        self._set.import_named([n for n, (_, m) in self._set.pending.items() if m.hosts])
        return iter(self._set.host_factories)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class PluginSet(msgspec.Struct):
    """The installed plug-ins, their kinds, Case fields and Hosts.

    A set opened for one Corpus (:mod:`eval_core._plugins.lazy`) holds some plug-ins only as
    their manifests (``pending``): ``plugins`` lists them all, ``kinds`` and ``fields`` only the
    imported ones. Asking for a hook's implementations (the Hosts, the fixtures, the witness
    checks, the model source, a per-Case hook) first imports every pending plug-in whose
    manifest says that hook sees every Case; :meth:`require` imports the owners of names."""

    manager: pluggy.PluginManager
    plugins: list[PluginInfo] = msgspec.field(default_factory=list)
    kinds: dict[str, KindSpec] = msgspec.field(default_factory=dict)
    kind_owner: dict[str, PluginInfo] = msgspec.field(default_factory=dict)
    fields: dict[str, CaseField] = msgspec.field(default_factory=dict)
    field_owner: dict[str, PluginInfo] = msgspec.field(default_factory=dict)
    host_factories: dict[str, HostFactory] = msgspec.field(default_factory=dict)
    host_owner: dict[str, str] = msgspec.field(default_factory=dict)
    found_fixtures: list[OwnedFixture] = msgspec.field(default_factory=list)
    found_checks: list[WitnessCheck] = msgspec.field(default_factory=list)
    source: ModelSource | None = None
    source_owner: PluginInfo | None = None
    suite: str = ""
    pending: dict[str, tuple[EntryPoint, Manifest]] = msgspec.field(default_factory=dict)
    _case_type: type[CaseBase] | None = None
    _checks: list[tuple[Any, frozenset[str] | None, frozenset[str]]] | None = None
    _hooks: dict[str, list[Any]] = msgspec.field(default_factory=dict)
    _origins: dict[str, Origin] = msgspec.field(default_factory=dict)
    _owned_by: dict[Any, frozenset[str] | None] = msgspec.field(default_factory=dict)
    _schemas: dict[str, str] | None = None
    _needed: set[tuple[str, str]] = msgspec.field(default_factory=set)
    prints: dict[tuple[str, tuple[str, ...]], CodePrint] = msgspec.field(default_factory=dict)

    @property
    def case_type(self) -> type[CaseBase]:
        """The Case type over the imported kinds and fields (built once: a plug-in imported
        later, for its witness checks, adds nothing a loaded Case uses)."""
        if self._case_type is None:
            structs = [spec.struct for spec in self.kinds.values()]
            self._case_type = build_case_type(structs, list(self.fields.values()))
        return self._case_type

    @property
    def hosts(self) -> Mapping[str, HostFactory]:
        """The Hosts by name: looking one up imports only the plug-in that provides it."""
        return _Hosts(self)

    @property
    def fixtures(self) -> list[OwnedFixture]:
        self.need("eval_fixtures")
        return self.found_fixtures

    @property
    def witness_checks(self) -> list[WitnessCheck]:
        self.need("eval_witness_checks")
        return self.found_checks

    @property
    def model_source(self) -> ModelSource | None:
        self.need("eval_models")
        return self.source

    @property
    def model_source_owner(self) -> PluginInfo | None:
        self.need("eval_models")
        return self.source_owner

    def require(self, names: Iterable[str]) -> None:
        """Import the pending plug-ins that own any of ``names`` (kinds, Case fields)."""
        wanted = set(names)
        self.import_named(
            [n for n, (_, m) in self.pending.items() if not m.names().isdisjoint(wanted)]
        )

    def need(self, hook: str, suite: str | None = None) -> None:
        """Import the pending plug-ins whose ``hook`` sees every Case (of ``suite``): once."""
        at = self.suite if suite is None else suite
        if self.pending and (hook, at) not in self._needed:
            self._needed.add((hook, at))
            self.import_named(
                [n for n, (_, m) in self.pending.items() if m.sees_every_case(hook, at)]
            )

    def import_named(self, names: list[str]) -> None:
        if not names:
            return
        from eval_core._plugins.lazy import import_pending

        import_pending(self, names)

    def forget(self) -> None:
        """Drop what was derived from the registered plug-ins (more were just registered)."""
        self._checks, self._schemas = None, None
        self._hooks.clear()
        self._owned_by.clear()

    def check_case(
        self, case: CaseBase, context: LoadContext, uses: frozenset[str] | None = None
    ) -> list[tuple[str, str]]:
        """Every plug-in's cross-field rules for one Case; a raising check is itself a problem
        (naming the plug-in, its version and where it raised), never a crash. ``uses`` (the
        Case's plug-in fields and kinds) skips the checks marked
        :func:`~eval_core._plugins.hookspecs.
        own_cases` of plug-ins the Case does not use."""
        problems: list[tuple[str, str]] = []
        self.need("eval_check_case", context.suite)
        if self._checks is None:
            self._checks = [
                (impl, self._owned(impl), owned_by(impl.function) or frozenset())
                for impl in self.manager.hook.eval_check_case.get_hookimpls()
            ]
        for impl, owned, suites in self._checks:
            skipped = owned is not None and uses is not None and owned.isdisjoint(uses)
            if skipped and context.suite not in suites:
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
        """The fields and kinds of a hook marked ``own_cases`` (None: it sees every Case);
        found once per hook implementation (asked for every Case of a load)."""
        if impl not in self._owned_by:
            self._owned_by[impl] = owned_names(self.plugins, impl)
        return self._owned_by[impl]

    def _skips(self, impl: Any, cases: Sequence[CaseBase]) -> bool:
        """A hook marked ``own_cases`` is not called when none of ``cases`` uses its plug-in."""
        owned = self._owned(impl)
        if owned is None or self.suite in (owned_by(impl.function) or ()):
            return False
        return not any(uses_any(case, owned) for case in cases)

    def origin(self, impl: Any) -> Origin:
        """Who registered a hookimpl (its distribution, version and code roots)."""
        found = self._origins.get(impl.plugin_name)
        if found is None:
            info = registered(self.plugins, impl)
            found = info.origin if info else Origin(str(impl.plugin_name), "(not registered)")
            self._origins[impl.plugin_name] = found
        return found

    def _impls(self, hook: str) -> list[Any]:
        self.need(hook)
        cached = self._hooks.get(hook)
        if cached is None:
            cached = self._hooks[hook] = list(getattr(self.manager.hook, hook).get_hookimpls())
        return cached

    def _label(self, impl: Any) -> str:
        info = registered(self.plugins, impl)
        return info.label if info is not None else str(impl.plugin_name)

    def variants(self, case: CaseBase) -> list[tuple[str, Any]]:
        """Every plug-in's derived Cases of ``case``: ``(plug-in label, document)`` pairs; a
        plug-in that raises gives ``(label, a PluginFault)`` for the loader to report."""
        found: list[tuple[str, Any]] = []
        for impl in self._impls("eval_variants"):
            if self._skips(impl, (case,)):
                continue
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
            if not self._skips(impl, (case,))
        )

    def sections(self, card: Scorecard, cases: Sequence[CaseBase]) -> list[Section]:
        """Every plug-in's section of a finished Sweep; one that raises blocks clearing."""
        return self._sections("eval_scorecard_sections", list(cases), card=card, cases=cases)

    def matrix_sections(self, cards: Sequence[Scorecard]) -> list[Section]:
        return self._sections("eval_matrix_sections", None, cards=cards)

    def _sections(
        self, hook: str, scope: Sequence[CaseBase] | None, **kwargs: Any
    ) -> list[Section]:
        found: list[Section] = []
        for impl in self._impls(hook):
            if scope is not None and self._skips(impl, scope):
                continue
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
            self._schemas = stored_schemas(self)
        return self._schemas

    def fingerprint(self, kinds: Iterable[str], fields: Iterable[str]) -> list[dict[str, Any]]:
        """Distribution, version, code and schema of every used kind and field (corpusHash)."""
        used = [("kind", n, n, self.kind_owner[n]) for n in sorted(set(kinds))]
        used += [
            ("field", json_name(n), f"field:{n}", self.field_owner[n]) for n in sorted(set(fields))
        ]
        return [  # in this key order: the corpusHash encodes them as they are
            {
                what: name,
                "distribution": owner.distribution,
                "version": owner.version,
                "code": owner.code,
                "schema": self.schemas()[schema],
            }
            for what, name, schema, owner in used
        ]


def implementations(found: PluginSet, hook: str) -> list[tuple[str, Any]]:
    """Each plug-in's function for ``hook``, with its label: for a caller that guards the
    calls its own way (the Sweep's hooks, :mod:`eval_core._sweeping.gating`)."""
    return [(found._label(impl), impl.function) for impl in found._impls(hook)]
