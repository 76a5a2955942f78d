"""The pluggy manager the plug-in set is registered in, finding hook implementations in a
plug-in module by a dictionary lookup.

pluggy looks up every name a plug-in module holds with ``inspect.getattr_static`` (so that no
property runs), about 860 lookups for a one-Case Sweep's plug-ins: most of the registration's
cost. A module's names are its ``__dict__``: a name its type (``ModuleType`` and its bases)
does not define is found there and nowhere else, so for those the answer is read from the
``__dict__`` directly; anything else (a class, an instance, a name the module type defines, a
method wrapper) is left to pluggy, so what counts as a hook implementation (or a hook
specification) is exactly what pluggy says.
"""

from __future__ import annotations

import types
from typing import Any

import pluggy

_ABSENT = object()
_PLUGGY_DECIDES = (staticmethod, classmethod, types.MethodType)


class Manager(pluggy.PluginManager):
    """:class:`pluggy.PluginManager` with the module fast path (see the module)."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        found = _in_module(plugin, name, self.project_name + "_impl")
        return super().parse_hookimpl_opts(plugin, name) if found is _ABSENT else found

    def parse_hookspec_opts(self, module_or_class: Any, name: str) -> Any:
        found = _in_module(module_or_class, name, self.project_name + "_spec")
        if found is _ABSENT:
            return super().parse_hookspec_opts(module_or_class, name)
        return found


def _in_module(plugin: object, name: str, marker: str) -> Any:
    """The marker's options on a module's function ``name`` (``None``: not marked, or not a
    function), or ``_ABSENT`` where pluggy must look itself."""
    if not isinstance(plugin, types.ModuleType) or name in _typed(type(plugin)):
        return _ABSENT
    value = plugin.__dict__.get(name, _ABSENT)
    if value is _ABSENT or isinstance(value, _PLUGGY_DECIDES):
        return _ABSENT
    if not isinstance(value, types.FunctionType):
        return None  # pluggy hooks only functions and method wrappers
    opts = getattr(value, marker, None)
    if opts is None:  # as pluggy reads a marker: the function's, else its __func__'s
        inner = getattr(value, "__func__", None)
        opts = getattr(inner, marker, None) if inner is not None else None
    return opts if isinstance(opts, dict) else None


def _typed(kind: type) -> frozenset[str]:
    """Every name the module's type or a base defines (a descriptor there may shadow the
    module's own value: pluggy decides); found once per type."""
    names = _TYPED.get(kind)
    if names is None:
        names = _TYPED[kind] = frozenset(n for klass in kind.__mro__ for n in vars(klass))
    return names


_TYPED: dict[type, frozenset[str]] = {}
