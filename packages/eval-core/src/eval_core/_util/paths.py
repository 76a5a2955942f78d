"""Reading JSON values the way Expectations do: dot paths, JSON found in model text, equality.

- :func:`resolve` follows a dot path (``$`` is the whole value; ``a.b.0.c``; ``$.a.b`` too).
- :func:`extract_json` finds the JSON a model put in its answer.
- :func:`deep_equal` is the equality of every ``*_equals`` kind: ``1 == 1.0``, ``True != 1``.
- :func:`quote` and :func:`render` turn text and values into one-line excerpts for details.

Every function here is total: the values are ``Any`` (whatever a model or a Tool produced), so
nothing here raises on them.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_CLOSERS = {"{": "}", "[": "]"}
_MISSING = object()
# Characters the balanced-bracket search may look at in one answer, over all its starts.
_SCAN_BUDGET = 1_000_000


def path_segments(path: str) -> list[str] | None:
    """The segments of a dot path, ``[]`` for ``$``; ``None`` when the path is malformed."""
    if path == "$":
        return []
    body = path[2:] if path.startswith("$.") else path
    segments = body.split(".")
    if any(segment == "" for segment in segments):
        return None
    return segments


def path_problem(path: str) -> str | None:
    """Why a path can never resolve (for a loader check), or ``None`` when it is well formed."""
    if not path:
        return "must be a non-empty dot path (a.b.0, or $ for the whole value)"
    if path_segments(path) is None:
        return f"{path!r} has an empty segment (a dot path is a.b.0, or $ for the whole value)"
    return None


def resolve(value: Any, path: str) -> tuple[bool, Any]:
    """Follow ``path`` into ``value``: ``(True, found)`` or ``(False, None)`` when it is missing.

    Object keys are matched exactly; a numeric segment indexes a list (0-based, no negatives).
    """
    segments = path_segments(path) if isinstance(path, str) else None
    if segments is None:
        return (False, None)
    current = value
    for segment in segments:
        if isinstance(current, dict):
            found = current.get(segment, _MISSING)
            if found is _MISSING:
                return (False, None)
            current = found
        elif isinstance(current, list | tuple):
            if not (segment.isascii() and segment.isdigit()):
                return (False, None)
            index = int(segment)
            if index >= len(current):
                return (False, None)
            current = current[index]
        else:
            return (False, None)
    return (True, current)


def _parse(text: str) -> tuple[bool, Any]:
    try:
        return (True, msgspec.json.decode(text))
    except Exception:  # DecodeError, or a nesting too deep to decode: not parsable either way
        return (False, None)


def _balanced_end(text: str, start: int, budget: int) -> tuple[int | None, int]:
    """The index just past the bracket that closes ``text[start]`` (string-aware) or ``None``,
    and how many characters the search looked at (it gives up after ``budget``)."""
    expected: list[str] = []
    in_string = False
    escaped = False
    stop = min(len(text), start + budget)
    for index in range(start, stop):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            expected.append(_CLOSERS[char])
        elif char in "}]":
            if not expected or expected.pop() != char:
                return (None, index + 1 - start)
            if not expected:
                return (index + 1, index + 1 - start)
    return (None, stop - start)


def extract_json(text: str) -> tuple[bool, Any]:
    """The JSON a model's answer carries: the first parsable of, in order,

    1. each fenced block's body (```` ```json ```` or bare ```` ``` ````),
    2. the whole trimmed text,
    3. a balanced ``{…}`` or ``[…]`` (string-aware), tried from each opening bracket in turn
       (the bracket search is bounded, so a long answer full of brackets stays cheap).
    """
    if not isinstance(text, str):
        return (False, None)
    for match in _FENCE.finditer(text):
        ok, value = _parse(match.group(1).strip())
        if ok:
            return (True, value)
    ok, value = _parse(text.strip())
    if ok:
        return (True, value)
    budget = _SCAN_BUDGET
    for start, char in enumerate(text):
        if budget <= 0:
            break
        if char in _CLOSERS:
            end, spent = _balanced_end(text, start, budget)
            budget -= spent
            if end is not None:
                ok, value = _parse(text[start:end])
                if ok:
                    return (True, value)
    return (False, None)


_PLAIN = frozenset({str, int, float, type(None)})
"""Types compared by ``==`` alone when both sides have the same one (a bool is not an int here)."""


_NUMBER = (int, float)


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBER) and not isinstance(value, bool)


def deep_equal(left: Any, right: Any) -> bool:
    """JSON equality: numbers by value (``1 == 1.0``), booleans only to booleans (``True != 1``),
    objects by key set and values, arrays by order. Iterative, so depth never raises."""
    stack: list[tuple[Any, Any]] = [(left, right)]
    while stack:
        a, b = stack.pop()
        kind = type(a)
        if kind is type(b) and kind in _PLAIN:  # the common case: two strings, two ints
            if a != b:
                return False
        elif kind is dict and type(b) is dict:  # two objects (what the general case says)
            if a.keys() != b.keys():
                return False
            stack.extend(zip(a.values(), map(b.__getitem__, a), strict=True))
        elif isinstance(a, bool) or isinstance(b, bool):
            if not (isinstance(a, bool) and isinstance(b, bool) and a == b):
                return False
        elif _is_number(a) or _is_number(b):
            if not (_is_number(a) and _is_number(b) and a == b):
                return False
        elif isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
                return False
            stack.extend((a[key], b[key]) for key in a)
        elif isinstance(a, list | tuple) or isinstance(b, list | tuple):
            if not (isinstance(a, list | tuple) and isinstance(b, list | tuple)):
                return False
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        else:
            try:
                if type(a) is not type(b) or not bool(a == b):
                    return False
            except Exception:
                return False
    return True


def compact_json(value: Any) -> str | None:
    """``value`` as compact JSON text, or ``None`` when it is not JSON-encodable."""
    try:
        return msgspec.json.encode(value).decode()
    except Exception:
        return None


def quote(text: str, limit: int = 240) -> str:
    """``text`` on one line (whitespace runs collapsed to one space), cut to ``limit`` with "…"."""
    collapsed = " ".join(str(text).split())
    if len(collapsed) <= limit:
        return collapsed
    return collapsed[: max(limit - 1, 0)] + "…"


def quoted(text: str, limit: int = 240) -> str:
    """:func:`quote` inside double quotes: how a detail shows text it compared."""
    return f'"{quote(text, limit)}"'


def render(value: Any, limit: int = 120) -> str:
    """A value for a detail: compact JSON (repr when not JSON), one line, cut to ``limit``."""
    encoded = compact_json(value)
    if encoded is None:
        try:
            encoded = repr(value)
        except Exception:
            encoded = f"<{type(value).__name__}>"
    return quote(encoded, limit)
