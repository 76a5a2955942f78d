"""A value as an Event's payload shows it: ``{"json", "bytes", "truncated"?}``.

The runtime's ``tool.call`` and ``tool.result`` events carry the call's arguments and the
Tool's output as previews (``argsPreview``, ``resultPreview``): compact JSON, cut past a size.
A Host building Evidence from those events and a fixture reacting to them read a preview the
same way, here: the value, or ``None`` when the preview was cut or is absent (a cut preview is
not the value, and no reader guesses at it).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec


def preview_value(shown: Any) -> Any:
    """The value an ``argsPreview``/``resultPreview`` carries; ``None`` when cut or absent.

    Read as :func:`json.loads` reads it (every Tool call's previews are read, so msgspec reads
    the text first: it gives the same value for any JSON it accepts, see the property test, and
    what it refuses, a ``NaN`` or a lone surrogate, is left to :mod:`json`)."""
    if not isinstance(shown, dict) or shown.get("truncated") or "json" not in shown:
        return None
    text = shown["json"]
    if type(text) is str:
        try:
            return msgspec.json.decode(text)
        except msgspec.DecodeError:
            pass
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None
