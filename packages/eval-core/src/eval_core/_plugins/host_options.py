"""A Host option that is a positive number: a timeout in seconds, a request limit.

A Host's options are the team's text (``--host-option timeout=30``, ``timeout = 30`` in
``[tool.eval]``); each Host that takes a number reads it here, so a malformed one is refused
in the same one line whichever Host is chosen, never a traceback.
"""

from __future__ import annotations

from typing import TypeVar

from eval_core._plugins.host import HostOptionError

D = TypeVar("D", float, None)


def number_option(name: str, value: object, default: D, *, most: float | None = None) -> float | D:
    """``value`` as a number above 0 (and at most ``most``); ``default`` when not given."""
    if value is None or value == "":
        return default
    try:
        number = float(str(value))
    except ValueError:
        raise HostOptionError(f"{name} must be a number, not {value!r}") from None
    if number <= 0:
        raise HostOptionError(f"{name} must be positive, not {value!r}")
    if most is not None and number > most:
        raise HostOptionError(f"{name} must be at most {most:g}, not {value!r}")
    return number
