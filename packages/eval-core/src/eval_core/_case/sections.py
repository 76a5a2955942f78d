"""Sections: what a plug-in adds to a Scorecard (or a Matrix) about the Trials it understands.

A family whose Cases mean more than pass or fail (an attack held by a guard, a rate a model
resisted) summarises its Trials in a :class:`Section`: data for programs (in the Scorecard
JSON), lines for people (printed after the totals), and reasons the Sweep does not clear. The
core prints and gates on them without knowing what they mean.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Section(msgspec.Struct, frozen=True, kw_only=True):
    """One plug-in's summary of a Sweep: ``name`` is its key; ``reasons`` block clearing."""

    name: str
    data: Any = None
    lines: list[str] = msgspec.field(default_factory=list)
    reasons: list[str] = msgspec.field(default_factory=list)
