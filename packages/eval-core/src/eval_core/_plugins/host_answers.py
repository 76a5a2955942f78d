"""A Host's load-time answers, asked inside the guard and checked for their type.

A Host is a plug-in: its agents, platform Tools, context rules, given text, services and tiers
are read while a Corpus loads, so one that raises or answers the wrong type is a refusal in one
line naming the Host and what it answered, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeGuard, TypeVar

import msgspec

from eval_core._case.case import CaseBase, ToolDecl
from eval_core._case.kinds import ALL_TIERS, Tier
from eval_core._plugins.host import ContextRules, Host
from eval_core._util.guard import PluginFault, call

T = TypeVar("T")


def agents(host: Host) -> frozenset[str]:
    return frozenset(_asked(host, "agents", _texts, "a set of agent names"))


def platform_tools(host: Host) -> Mapping[str, ToolDecl]:
    declared = _asked(host, "platform_tools", _declarations, "a mapping of names to ToolDecl")
    for name, decl in declared.items():
        try:  # a Struct is built unchecked: its fields are checked as a Case file's are
            msgspec.convert(msgspec.to_builtins(decl), ToolDecl)
        except (msgspec.ValidationError, TypeError) as exc:
            raise PluginFault(
                f"platform_tools of Host {_name(host)!r} returned Tool {name!r}: {exc}"
            ) from None
    return declared


def context_rules(host: Host) -> ContextRules:
    return _asked(host, "context_rules", _rules, "ContextRules")


def given_text(host: Host, case: CaseBase) -> Sequence[str]:
    return tuple(_asked(host, "given_text", _texts, "a list of text", case))


def services(host: Host, tier: Tier) -> Sequence[type]:
    return tuple(_asked(host, "services", _classes, "a list of classes", tier))


def tiers(host: Host) -> frozenset[Tier]:
    """The tiers the Host offers (an attribute, checked the same way)."""
    offered = getattr(host, "tiers", None)
    if not _collection(offered) or not offered or not set(offered) <= ALL_TIERS:
        raise _wrong(host, "tiers", offered, f"a set of {'/'.join(sorted(ALL_TIERS))}")
    return frozenset(offered)


def parks_calls(host: Host) -> bool:
    """Whether the Host parks a call whose provider is scripted to wait (an optional
    attribute: a Host without it parks none)."""
    parks = getattr(host, "parks_calls", False)
    if not isinstance(parks, bool):
        raise _wrong(host, "parks_calls", parks, "True or False")
    return parks


def closed(host: Host) -> str | None:
    """Close the Host; the one line saying how that failed, or ``None``. Its Trials' verdicts
    stand: the failure is said after them (and sets the exit code), never a traceback."""
    try:
        call(None, f"close of Host {_name(host)!r}", host.close)
    except PluginFault as exc:
        return str(exc)
    return None


def _asked(
    host: Host, method: str, fits: Callable[[object], TypeGuard[T]], wanted: str, *args: Any
) -> T:
    asked = getattr(host, method, None)
    if not callable(asked):
        raise _wrong(host, method, asked, "a method")
    answer = call(None, f"{method} of Host {_name(host)!r}", asked, *args)
    if not fits(answer):
        raise _wrong(host, method, answer, wanted)
    return answer


def _wrong(host: Host, method: str, answer: object, wanted: str) -> PluginFault:
    shown = type(answer).__name__ if answer is not None else "None"
    if _collection(answer) and answer:  # the right container of the wrong things: say which
        shown += f" holding {', '.join(sorted({type(item).__name__ for item in answer}))}"
    return PluginFault(f"{method} of Host {_name(host)!r} returned {shown}, not {wanted}")


def _name(host: Host) -> str:
    name = getattr(host, "name", None)
    return name if isinstance(name, str) else type(host).__name__


def _collection(value: object) -> TypeGuard[Collection[Any]]:
    return isinstance(value, Collection) and not isinstance(value, (str, bytes, Mapping))


def _texts(value: object) -> TypeGuard[Collection[str]]:
    return _collection(value) and all(isinstance(s, str) for s in value)


def _classes(value: object) -> TypeGuard[Collection[type]]:
    return _collection(value) and all(isinstance(c, type) for c in value)


def _declarations(value: object) -> TypeGuard[Mapping[str, ToolDecl]]:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, ToolDecl) for k, v in value.items()
    )


def _rules(value: object) -> TypeGuard[ContextRules]:
    return isinstance(value, ContextRules)
