"""One registered plug-in (:class:`PluginInfo`: its entry point, the distribution that shipped
it, what it declared), and which one registered a hook implementation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from eval_core._plugins.hookspecs import owned_by
from eval_core._util.guard import Origin

if TYPE_CHECKING:
    from eval_core._util.code import CodePrint


class PluginInfo(msgspec.Struct, frozen=True):
    """One registered plug-in: its entry point and the distribution that shipped it, and the
    fingerprint of its code (``printed``)."""

    entry_point: str
    distribution: str
    version: str
    kinds: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    printed: CodePrint | None = None
    origin: Origin = msgspec.field(default_factory=lambda: Origin("", ""))

    @property
    def code(self) -> str:
        """The code digest (what the lock and the corpusHash pin), parsed when first asked for
        where nothing knows it yet (:class:`~eval_core._util.code.CodePrint`)."""
        return self.printed.digest if self.printed is not None else ""

    @property
    def raw(self) -> str:
        """The digest of the code's bytes: what a cache keys on (never parsed; as strong as
        ``code`` and stronger: a reworded docstring is a new key)."""
        return self.printed.raw if self.printed is not None else ""

    @property
    def label(self) -> str:
        return f"{self.distribution} {self.version} (entry point {self.entry_point!r})"


def registered(plugins: Sequence[PluginInfo], impl: Any) -> PluginInfo | None:
    """The plug-in whose hook implementation ``impl`` is (pluggy names it
    ``distribution:entry point``), or ``None``."""
    distribution, _, entry_point = str(impl.plugin_name).partition(":")
    for info in plugins:
        if (info.distribution, info.entry_point) == (distribution, entry_point):
            return info
    return None


def owned_names(plugins: Sequence[PluginInfo], impl: Any) -> frozenset[str] | None:
    """The fields and kinds of the plug-in whose hook ``impl`` is marked ``own_cases`` (the
    Cases it sees); ``None`` when it sees every Case."""
    if owned_by(impl.function) is None:
        return None
    info = registered(plugins, impl)
    return frozenset(info.fields) | frozenset(info.kinds) if info is not None else None
