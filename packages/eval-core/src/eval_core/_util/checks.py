"""Value rules the built-in families share (the ``check`` half of a KindSpec), and the same
rules as JSON Schema keywords (its ``json_schema`` half), so an editor refuses what the loader
would.

Each check returns ``(json_path_suffix, reason)`` pairs, the suffix relative to the Expectation.
"""

from __future__ import annotations

from typing import Any

from eval_core._util.paths import path_problem

Problems = list[tuple[str, str]]

NON_EMPTY: dict[str, Any] = {"minLength": 1, "pattern": r"\S"}
""":func:`non_empty` and :func:`optional_reason` as JSON Schema: something besides spaces."""
DOT_PATH: dict[str, Any] = {"minLength": 1, "pattern": r"^(\$|(\$\.)?[^.]+(\.[^.]+)*)$"}
""":func:`dot_path` as JSON Schema: ``$``, or segments without an empty one."""


def properties(**fields: dict[str, Any]) -> dict[str, Any]:
    """A ``json_schema`` overlay putting keywords on fields, named as JSON spells them:
    ``properties(text=NON_EMPTY, count={"minimum": 0})``."""
    return {"properties": fields}


def at_least(minimum: int) -> dict[str, Any]:
    return {"minimum": minimum}


def non_empty_list(item: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"minItems": 1, **({"items": item} if item else {})}


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
