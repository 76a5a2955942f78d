"""JSON text of the values a Turn shows and digests, by msgspec where that is byte for byte what
:mod:`json` writes, else by :mod:`json` itself.

Every Tool call is digested (its arguments, keys sorted) and previewed (its arguments and its
result, keys in order), and a repeated call is compared by its JSON: several encodes a Trial,
each several times slower through :mod:`json` than through msgspec. The two agree on plain
values (strings, 64-bit integers, booleans, ``None``, lists, and dicts keyed by strings,
nested; see the property test) and may differ elsewhere: a float's spelling (``1e+16``), a
lone surrogate, a key that is not a string, a value only ``default`` can show. So a value that is
not plain, or that msgspec refuses, is encoded by :mod:`json` exactly as before: no digest or
preview ever moves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec

_LOW, _HIGH = -(1 << 63), 1 << 64  # what msgspec encodes as an integer


def plain(value: Any) -> bool:
    """Whether ``value`` is made only of what both encoders spell alike (exact types: a
    subclass of ``str`` or ``int`` may encode otherwise, and is not plain)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(_LOW <= value < _HIGH)
    if kind is list:
        return all(plain(item) for item in value)
    if kind is dict:
        return all(type(key) is str and plain(item) for key, item in value.items())
    return False


def encoder(sort_keys: bool, default: Callable[[Any], Any]) -> Callable[[Any], str]:
    """The JSON text of a value, no whitespace, ``ensure_ascii`` off, keys sorted or not, as
    ``json.JSONEncoder(..., default=default).encode`` writes it."""
    fast = msgspec.json.Encoder(order="sorted" if sort_keys else None)
    slow = json.JSONEncoder(
        sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":"), default=default
    )

    def encode(value: Any) -> str:
        try:
            if plain(value):
                return fast.encode(value).decode()
        except (RecursionError, UnicodeEncodeError, msgspec.EncodeError, OverflowError):
            pass  # too deep to check, or a lone surrogate: json says it, as before
        return slow.encode(value)

    return encode
