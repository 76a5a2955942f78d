"""A public module whose names load on first use (PEP 562), from an explicit table.

Each public module of ``eval_core`` (one per audience) lists its names twice: as imports under
``if TYPE_CHECKING:`` (what type checkers and readers see) and in a dict literal ``name ->
"module:attribute"`` that :class:`Public` resolves when a name is first used. A command
plug-in registering its commands for ``eval --help`` then pays for ``Commands`` alone, not for
the Corpus opener beside it. Its ``dir()`` is its ``__all__`` (:meth:`Public.hooks`).
``tests/test_boundaries.py`` checks the two lists agree and every entry resolves.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any


class Public:
    """The ``__getattr__`` of one public module: resolves a name once, then keeps it in the
    module's globals so later uses never come back here."""

    def __init__(self, module: str, table: dict[str, str]) -> None:
        self.module = module
        self.table = table

    def __call__(self, name: str) -> Any:
        try:
            module, _, attribute = self.table[name].partition(":")
        except KeyError:
            raise AttributeError(f"{self.module} has no public name {name!r}") from None
        value = getattr(importlib.import_module(module), attribute)
        setattr(sys.modules[self.module], name, value)
        return value

    def hooks(self, names: list[str]) -> tuple[Public, Callable[[], list[str]]]:
        """The module's two PEP 562 hooks: this ``__getattr__``, and a ``__dir__`` that lists
        ``names`` (its ``__all__``), not the imports it has loaded so far."""
        return self, lambda: names
