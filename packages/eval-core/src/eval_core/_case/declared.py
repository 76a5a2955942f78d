"""What a plug-in declares to the core (a kind, a Case field, a witness check): a frozen
msgspec Struct, equal, hashed and shown by what was declared, never by who declared it.

Structs, not dataclasses: every command creates these classes at start-up, and a dataclass
costs a millisecond or more to create where a Struct costs a few microseconds. The ``origin``
field (set by the plug-in loader once the declaration is registered) is bookkeeping, so it is
left out of ``==``, ``hash`` and ``repr`` as ``field(compare=False, repr=False)`` left it out.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Declared(msgspec.Struct, frozen=True):
    """Base of a plug-in's declaration; its subclasses add the fields (``origin`` last)."""

    def _declared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__struct_fields__ if name != "origin")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._declared() == other._declared()

    def __hash__(self) -> int:
        return hash(self._declared())

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__ if name != "origin"
        )
        return f"{type(self).__name__}({shown})"
