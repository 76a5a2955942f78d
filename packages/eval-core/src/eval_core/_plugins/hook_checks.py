"""What a plug-in must be, refused in one line naming it: hooks pluggy would silently ignore
(none at all, one no hookspec declares, one not marked ``@hookimpl``), a hook's answer of the
wrong type, and a name in the prefix reserved for this project's own distributions.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Mapping
from typing import Any, cast

import pluggy

from eval_core._case.case import CaseField
from eval_core._case.kinds import KindSpec
from eval_core._case.witness import WITNESSES
from eval_core._plugins import hookspecs
from eval_core._plugins.fixtures import TrialFixture
from eval_core._plugins.host import HostFactory
from eval_core._plugins.model_source import ModelSource
from eval_core._util.guard import Origin


class PluginError(Exception):
    """A plug-in that cannot be used: broken, or in conflict with another."""


HOOKS = tuple(sorted(n for n in vars(hookspecs) if n.startswith("eval_")))


RESERVED_PREFIX = "eval_"
"""Kind and Case-field names starting ``eval_`` are reserved for this project's own
distributions (named ``eval-*``); a third party prefixes its names with its own."""


def check_hooks(manager: pluggy.PluginManager, plugin: object, origin: Origin, label: str) -> None:
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


def reserved(name: str, what: str, distribution: str, label: str) -> None:
    if name.startswith(RESERVED_PREFIX) and not distribution.startswith("eval-"):
        raise PluginError(
            f"plug-in {label}: {what} {name!r} uses the reserved prefix {RESERVED_PREFIX!r}; "
            "prefix it with your distribution's name instead"
        )


def as_kind(spec: object, label: str) -> KindSpec:
    if not isinstance(spec, KindSpec):
        raise PluginError(f"plug-in {label} returned {spec!r} from eval_kinds, not a KindSpec")
    if spec.witness is not None and spec.witness not in WITNESSES:
        raise PluginError(
            f"plug-in {label}: kind {spec.name!r} names the witness {spec.witness!r}; "
            f"a witness is one of {', '.join(WITNESSES)}"
        )
    return spec


def as_field(case_field: object, label: str) -> CaseField:
    if not isinstance(case_field, CaseField):
        raise PluginError(
            f"plug-in {label} returned {case_field!r} from eval_case_fields, not a CaseField"
        )
    return case_field


def as_fixture(fixture: object, label: str) -> TrialFixture:
    if not isinstance(fixture, TrialFixture):
        raise PluginError(
            f"plug-in {label} returned {fixture!r} from eval_fixtures, not a TrialFixture"
        )
    return fixture


def as_source(source: object, label: str) -> ModelSource:
    if not all(callable(getattr(source, m, None)) for m in ("open_leg", "judge")):
        raise PluginError(
            f"plug-in {label} returned {source!r} from eval_models, not a model source "
            "(open_leg, judge)"
        )
    return cast(ModelSource, source)


def as_mapping(hosts: object, label: str) -> Mapping[str, HostFactory]:
    if not isinstance(hosts, Mapping):
        raise PluginError(f"plug-in {label} returned {hosts!r} from eval_hosts, not a mapping")
    return hosts
