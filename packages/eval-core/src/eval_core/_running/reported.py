"""The Evidence a Host reports, checked for its shape before the core reads it.

A Host is a plug-in, and msgspec builds a Struct unchecked: an answer object where the text
was due, or a dict where a ToolCall was, would otherwise reach the Scorecard's admission or a
witness check and end the Sweep with a traceback. A misshapen report errs its Trial in one line.
Only what the Host fills is checked (the binding's record is the core's own), by type, not
deep: a few ``isinstance`` a Trial.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

from eval_core._case.evidence import (
    Denial,
    Event,
    Evidence,
    GuardDecision,
    Testimony,
    ToolCall,
    ToolResult,
    Usage,
)

Fits = Callable[[Any], bool]


def _optional(kind: type) -> Fits:
    return lambda value: value is None or isinstance(value, kind)


def _list_of(kind: type) -> Fits:
    return lambda value: (  # map, not a generator: no Python frame per item, every Trial
        value is None or (isinstance(value, list) and all(map(isinstance, value, repeat(kind))))
    )


_FIELDS: tuple[tuple[str, Fits, str], ...] = (
    *(
        (name, _optional(str), "text")
        for name in ("output_text", "loop_status", "loop_reason", "injected_fault")
    ),
    ("output_kind", lambda v: v in (None, "text", "structured", "tool_calls", "none"), "a kind"),
    ("usage", lambda v: isinstance(v, Usage), "Usage"),
    ("testimony", _optional(Testimony), "Testimony"),
    ("records", lambda v: isinstance(v, dict), "a dict"),
    *(
        (name, _list_of(kind), f"a list of {kind.__name__}")
        for name, kind in (
            ("tool_calls", ToolCall),
            ("tool_results", ToolResult),
            ("denials", Denial),
            ("guard_decisions", GuardDecision),
            ("events", Event),
        )
    ),
)


def misshapen(evidence: object) -> str | None:
    """What is wrong with the report, as the rest of "the Host reported ..." reads, or ``None``."""
    if not isinstance(evidence, Evidence):
        return f"{type(evidence).__name__}, not Evidence"
    for name, fits, wanted in _FIELDS:
        value = getattr(evidence, name)
        if not fits(value):
            return f"Evidence whose {name} is {_shown(value)}, not {wanted}"
    return None


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value)[:40]
    if isinstance(value, list):
        return f"a list holding {', '.join(sorted({type(item).__name__ for item in value}))}"
    return type(value).__name__
