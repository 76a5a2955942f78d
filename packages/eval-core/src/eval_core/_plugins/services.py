"""Host services: what a Host offers to fixtures, matched to the Protocols fixtures ask for.

A family declares the service it needs as a :class:`typing.Protocol` in its own package (a File
store, an MCP account registry, a native inbox...). A Host offers plain objects and never
imports a family: an offered service satisfies a Protocol when it has every member the Protocol
declares, each method with the same parameter names (the way pytest refuses a hook
implementation whose arguments do not match the spec). Exactly one offered service may match;
two is an ambiguity the Host must resolve, never a silent pick.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from functools import cache
from typing import Any, Protocol

_PROTOCOL_INTERNALS = frozenset(
    {
        "_is_protocol",
        "_is_runtime_protocol",
        "__protocol_attrs__",
        "__non_callable_proto_members__",
        "__parameters__",
        "__orig_bases__",
        "__annotations__",
        "__dict__",
        "__weakref__",
        "__doc__",
        "__module__",
        "__qualname__",
        "__init__",
        "__slots__",
        "__subclasshook__",
        "__abstractmethods__",
        "_abc_impl",
        "__type_params__",
        "__static_attributes__",
        "__firstlineno__",
    }
)


class ServiceError(Exception):
    """A service a fixture asked for is missing, or matched twice."""


@cache
def members(protocol: type) -> tuple[tuple[str, inspect.Signature | None], ...]:
    """The Protocol's own members: methods with their signatures, attributes with ``None``."""
    found: dict[str, inspect.Signature | None] = {}
    for base in reversed(protocol.__mro__):
        if base in (object, Protocol) or base.__module__ == "typing":
            continue
        for name in getattr(base, "__annotations__", {}):
            if not name.startswith("_"):
                found[name] = None
        for name, value in vars(base).items():
            if name in _PROTOCOL_INTERNALS or (name.startswith("__") and name != "__call__"):
                continue
            if name.startswith("_"):
                continue
            if isinstance(value, property):
                found[name] = None
            elif callable(value):
                found[name] = _signature(value)
    return tuple(sorted(found.items()))


def _signature(function: Any) -> inspect.Signature | None:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    return signature.replace(parameters=params, return_annotation=inspect.Signature.empty)


def _names(signature: inspect.Signature) -> list[tuple[str, Any]]:
    return [(p.name, p.kind) for p in signature.parameters.values()]


def mismatch(offered: type, protocol: type) -> str | None:
    """Why ``offered`` does not satisfy ``protocol`` (``None`` when it does)."""
    for name, wanted in members(protocol):
        if not hasattr(offered, name) and name not in getattr(offered, "__annotations__", {}):
            return f"it has no {name!r}"
        if wanted is None:
            continue
        got = _signature(getattr(offered, name, None))
        if got is None or _names(got) != _names(wanted):
            return f"{name}{got or '(?)'} does not match {name}{wanted}"
    return None


@cache  # a pure function of two classes, asked for every service of every Trial
def satisfies(offered: type, protocol: type) -> bool:
    return mismatch(offered, protocol) is None


def find(offered: Sequence[Any], protocol: type, host: str) -> Any:
    """The one offered service (instance or class) that satisfies ``protocol``."""
    matches = [s for s in offered if satisfies(s if isinstance(s, type) else type(s), protocol)]
    if not matches:
        raise ServiceError(f"Host {host!r} offers no {protocol.__name__} service")
    if len(matches) > 1:
        names = ", ".join(sorted((m if isinstance(m, type) else type(m)).__name__ for m in matches))
        raise ServiceError(f"Host {host!r} offers {protocol.__name__} twice: {names}")
    return matches[0]
