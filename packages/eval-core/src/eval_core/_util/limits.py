"""Limits on what input may cost: how deep a document nests, how many Trials a Sweep plans.

Every limit here is checked before the work it bounds, and a refusal names the file, the JSON
path and the reason (never a ``RecursionError``, never memory without bound):

- ``MAX_DEPTH`` (64): arrays and objects nested inside each other, in every JSON or YAML
  document the core decodes (Case files, Baselines, Scorecards for ``eval compare``, trial
  logs, ``eval.lock``). The decoders recurse; a cheap scan runs first.
- YAML anchors and aliases are refused outright: an alias is how a few hundred bytes expand to
  gigabytes (the "billion laughs"), and a self-referencing one makes a cycle.
- ``MAX_TRIALS_PER_CASE`` (1000) for a Case's ``trials``, ``MAX_REPEAT`` (1000) for
  ``--repeat``, and ``MAX_PLANNED_TRIALS`` (100,000) for a whole Sweep (Cases x trials x repeat);
  ``MAX_JOBS`` (256) Trials at once.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

MAX_DEPTH = 64
MAX_TRIALS_PER_CASE = 1000
MAX_REPEAT = 1000
MAX_PLANNED_TRIALS = 100_000
MAX_JOBS = 256

_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}:,]', re.DOTALL)
_NOT_MARK = bytes(b for b in range(256) if b not in b'"[]{}')
_WINDOW = 1 << 16
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1
_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*\Z")


class TooDeep(Exception):  # noqa: N818 - it names an outcome
    """A document nested deeper than allowed; ``path`` is where the limit was crossed."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def too_deep_reason(limit: int = MAX_DEPTH) -> str:
    return f"nested deeper than {limit} levels of arrays and objects (the limit)"


def check_json_depth(data: bytes, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`TooDeep` when the JSON text ``data`` nests deeper than ``limit``.

    Cheap: a document with at most ``limit`` brackets in all cannot be too deep (two C-speed
    counts); otherwise strings are cut out and the running depth of the brackets left is
    summed, still without a Python-level loop. Only a document that is too deep is walked
    token by token, to name the path. Malformed text is left to the decoder to refuse.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    brackets = _outside_strings(data)
    if not brackets or max(itertools.accumulate(map(_STEP.__getitem__, brackets))) <= limit:
        return
    raise TooDeep(_json_path_at_depth(data, limit), too_deep_reason(limit))


def _outside_strings(data: bytes) -> bytes:
    """The brackets of ``data`` that are not inside a string, in memory a few times the
    number of its quotes and brackets (not a list of every piece of text between strings, which
    for a saved Sweep of 200,000 Trials was a gigabyte): escapes are dropped pair by pair, left
    to right as a decoder reads them (``\\\\`` first, then ``\\"``), so every quote left
    opens or closes a string; quotes and brackets alone are kept, and the strings among them
    (now only brackets between two quotes) are cut out, a window at a time."""
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = data.translate(None, _NOT_MARK)
    if b'"' not in marks:
        return marks
    kept: list[bytes] = []
    inside = False  # whether the window starts inside a string
    for start in range(0, len(marks), _WINDOW):  # a window at a time: its pieces die with it
        window = marks[start : start + _WINDOW]
        pieces = window.split(b'"')
        kept.append(b"".join(pieces[1::2] if inside else pieces[::2]))
        inside ^= window.count(b'"') % 2 == 1
    return b"".join(kept)


def _json_path_at_depth(data: bytes, limit: int) -> str:
    """The JSON path of the first container that opens below ``limit`` levels."""
    frames: list[list[Any]] = []  # [is_object, key or index, expecting a key]
    for match in _TOKEN.finditer(data):
        token = match.group()
        if token in (b"[", b"{"):
            if len(frames) >= limit:
                return _render([frame[1] for frame in frames])
            if frames and frames[-1][0] and frames[-1][1] is None:
                frames[-1][1] = "?"
            frames.append([token == b"{", None if token == b"{" else 0, token == b"{"])
        elif token in (b"]", b"}"):
            if frames:
                frames.pop()
        elif token == b":":
            if frames:
                frames[-1][2] = False
        elif token == b",":
            if frames:
                frame = frames[-1]
                if frame[0]:
                    frame[2] = True
                else:
                    frame[1] += 1
        elif frames and frames[-1][0] and frames[-1][2]:
            import json  # only when a document is too deep, to name the path

            try:
                frames[-1][1] = json.loads(token)
            except ValueError:
                frames[-1][1] = "?"
    return _render([frame[1] for frame in frames])


def _quoted(text: str) -> str:
    import json

    return json.dumps(text)


def _render(segments: list[Any]) -> str:
    path = "$" + "".join(
        f"[{s}]"
        if isinstance(s, int)
        else f".{s}"
        if isinstance(s, str) and _SIMPLE_KEY.match(s)
        else f"[{_quoted(str(s))}]"
        for s in segments
        if s is not None
    )
    if len(path) > 160:
        path = f"{path[:60]}...{path[-60:]}"
    return path


def check_yaml(text: str | bytes, limit: int = MAX_DEPTH) -> None:
    """Refuse anchors, aliases and nesting deeper than ``limit``, by the parser's events only.

    Raises :class:`TooDeep` (with the path) before anything is composed or constructed, so an
    alias bomb or a self-referencing alias never expands. Syntax errors are left to the loader.
    """
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    frames: list[list[Any]] = []  # [is_mapping, key or index, expecting a key]

    def where() -> str:
        return _render([frame[1] for frame in frames])

    def advance() -> None:
        if not frames:
            return
        frame = frames[-1]
        if frame[0]:
            frame[2] = not frame[2]
        else:
            frame[1] += 1

    loader = loader_class(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.AliasEvent):
                raise TooDeep(
                    where(),
                    f"YAML alias *{event.anchor} refused: anchors and aliases are not "
                    "allowed in a Case (they can expand without bound)",
                )
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise TooDeep(
                    where(),
                    f"YAML anchor &{anchor} refused: anchors and aliases are not allowed in a "
                    "Case (they can expand without bound)",
                )
            if isinstance(event, yaml.ScalarEvent):
                if frames and frames[-1][0] and frames[-1][2]:
                    frames[-1][1] = event.value
                advance()
            elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                if len(frames) >= limit:
                    raise TooDeep(where(), too_deep_reason(limit))
                if frames and frames[-1][0] and frames[-1][2]:
                    frames[-1][1] = "?"
                is_mapping = isinstance(event, yaml.MappingStartEvent)
                frames.append([is_mapping, None if is_mapping else 0, is_mapping])
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                frames.pop()
                advance()
    finally:
        loader.dispose()
