"""A public namespace whose names load on first use (PEP 562).

The namespace module lists its names as imports under ``if TYPE_CHECKING:`` (what type checkers
and readers see) and hands its ``__getattr__`` to :class:`LazyNames`, which reads that import
block as text (``ast`` costs start-up) and imports a name's module only when it is first used.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any


def table(source: Path) -> dict[str, tuple[str, str]]:
    """Where each name lives (``name -> (module, attribute)``): the ``TYPE_CHECKING`` imports of
    ``source``, up to the first gap of two blank lines."""
    block = source.read_text(encoding="utf-8").split("\nif TYPE_CHECKING:\n", 1)[1]
    lines = block.split("\n\n\n", 1)[0].replace("(", "").replace(")", "").splitlines()
    found: dict[str, tuple[str, str]] = {}
    for module, _, names in (s.partition(" import ") for s in " ".join(lines).split(" from ")[1:]):
        for name, _, asname in (a.strip().partition(" as ") for a in names.split(",")):
            if name:
                found[asname or name] = (module.strip(), name)
    return found


class LazyNames:
    """The ``__getattr__`` of one namespace module: resolves a name once, then keeps it in the
    module's globals so later uses never come back here."""

    def __init__(self, module: str, source: Path) -> None:
        self.module = module
        self.source = source
        self.where: dict[str, tuple[str, str]] = {}

    def __call__(self, name: str) -> Any:
        if not self.where:
            self.where.update(table(self.source))
        try:
            module, attribute = self.where[name]
        except KeyError:
            raise AttributeError(f"{self.module} has no public name {name!r}") from None
        value = getattr(importlib.import_module(module), attribute)
        setattr(sys.modules[self.module], name, value)
        return value
