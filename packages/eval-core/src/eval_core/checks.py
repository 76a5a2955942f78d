"""Value rules the built-in families share (the ``check`` half of a KindSpec).

Each returns ``(json_path_suffix, reason)`` pairs, the suffix relative to the Expectation.
"""

from __future__ import annotations

from eval_core.paths import path_problem

Problems = list[tuple[str, str]]


def non_empty(value: str, suffix: str) -> Problems:
    """``value`` must hold something besides whitespace."""
    if not value.strip():
        return [(suffix, "must be a non-empty string")]
    return []


def optional_reason(value: str | None, suffix: str = ".ungrounded") -> Problems:
    """An optional reason, when present, must say something."""
    if value is not None and not value.strip():
        return [(suffix, "when present, must be a non-empty reason")]
    return []


def dot_path(value: str, suffix: str = ".path") -> Problems:
    """A dot path that can resolve: non-empty, no empty segment."""
    problem = path_problem(value)
    return [(suffix, problem)] if problem else []
