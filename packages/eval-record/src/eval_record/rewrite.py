"""A Case file with some of its fields replaced, and nothing else changed.

Only the fields given change (``script``, ``recorded``, ``toolResults``); every other field
keeps its value and its place, and the file keeps its format: JSON its key order and its
indentation, YAML (through ruamel.yaml's round trip) its key order, its comments and its
quoting. A field the file lacks is added after ``script`` (``script`` itself after ``input``),
where a reader looks for it. The file is replaced atomically, so a crash leaves the old Case or
the new one, never half of each.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

AFTER = {"script": ("input", "agent"), "recorded": ("script",), "toolResults": ("tools",)}
"""Where a field the file lacks goes: after the first of these keys it has (else at the end)."""


class RewriteRefused(Exception):  # noqa: N818 - it names an outcome
    """The file is not a Case this can rewrite (not a mapping, or not parsed): one line."""


def rewrite(path: Path, data: bytes, changes: Mapping[str, Any]) -> bytes:
    """``data`` (the Case file at ``path``) with ``changes`` set, in the file's own format.

    The result is read back as the loader reads Case files (msgspec's JSON, PyYAML's safe
    loader) and must equal the old document with the changes set, in the same key order:
    anything else (a string YAML 1.1 would read as a boolean...) is refused, never written."""
    json_file = path.suffix == ".json"
    out = _json(data, changes) if json_file else _yaml(data, changes)
    before = _read(data, json_file)
    try:
        after = _read(out, json_file)
    except Exception as exc:
        why = one_line(str(exc))
        raise RewriteRefused(f"the rewritten file would not read back: {why}") from None
    expected = dict(_placed(list(before.items()), changes))
    if after != expected or list(after) != list(expected):
        raise RewriteRefused("the rewritten file would not read back as the recorded Case")
    return out


def _read(data: bytes, json_file: bool) -> dict[str, Any]:
    """A Case file as the loader reads it."""
    if json_file:
        value = msgspec.json.decode(data)
    else:
        import yaml

        value = yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    if not isinstance(value, dict):
        raise RewriteRefused("not a mapping")
    return value


def _placed(items: list[tuple[str, Any]], changes: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The keys in their order, changed values in place, missing ones after their anchor."""
    out = [(k, changes.get(k, v)) for k, v in items]
    order = list(AFTER)  # an anchor is placed before what follows it
    for key in sorted(changes, key=lambda k: order.index(k) if k in order else len(order)):
        value = changes[key]
        if any(k == key for k, _ in out):
            continue
        at = len(out)
        for anchor in AFTER.get(key, ()):
            found = next((i for i, (k, _) in enumerate(out) if k == anchor), None)
            if found is not None:
                at = found + 1
                break
        out.insert(at, (key, value))
    return out


def _json(data: bytes, changes: Mapping[str, Any]) -> bytes:
    try:
        text = data.decode("utf-8")
        parsed = json.loads(text)  # a dict keeps the file's key order
    except (UnicodeDecodeError, ValueError) as exc:
        raise RewriteRefused(f"not JSON: {one_line(str(exc))}") from None
    if not isinstance(parsed, dict):
        raise RewriteRefused("not a JSON object")
    document = dict(_placed(list(parsed.items()), changes))
    indent = _json_indent(text)
    ascii_only = "\\u" in text and not any(ord(c) > 127 for c in text)
    if indent is None:
        out = json.dumps(document, ensure_ascii=ascii_only, separators=_separators(text))
    else:
        out = json.dumps(document, ensure_ascii=ascii_only, indent=indent)
    return (out + ("\n" if text.endswith("\n") else "")).encode("utf-8")


def _json_indent(text: str) -> str | int | None:
    """The file's indentation unit (spaces counted, or a tab), ``None`` for one line."""
    match = re.search(r"\{[ \t]*\r?\n([ \t]+)\S", text)
    if match is None:
        return None
    unit = match.group(1)
    return unit if "\t" in unit else len(unit)


def _separators(text: str) -> tuple[str, str]:
    return ("," if re.search(r",\S", text) and not re.search(r", ", text) else ", "), (
        ":" if re.search(r'":\S', text) and not re.search(r'": ', text) else ": "
    )


def _yaml(data: bytes, changes: Mapping[str, Any]) -> bytes:
    """Only the changed fields' lines are replaced (or new ones inserted), each dumped by
    ruamel.yaml with the file's own indentation; every other line is kept byte for byte, its
    comments with it. A file whose top level is not a block mapping is round-tripped whole by
    ruamel.yaml instead (key order and comments kept, layout normalised)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    try:
        text = data.decode("utf-8")
        document = _load_round_trip(text)
    except (UnicodeDecodeError, YAMLError) as exc:
        raise RewriteRefused(f"not YAML: {one_line(str(exc))}") from None
    if not isinstance(document, CommentedMap):
        raise RewriteRefused("not a YAML mapping")
    lines = text.splitlines(keepends=True)
    yaml = _dumper(*_indents(lines))
    starts = {key: document.lc.key(key)[0] for key in document}
    if any(document.lc.key(key)[1] != 0 for key in document) or not _ordered(starts):
        return _round_trip(yaml, document, changes)
    spans = _spans(lines, list(starts.values()))
    replaced: dict[int, list[str]] = {}  # a span's first line: the lines in its place
    inserted: dict[int, list[str]] = {}  # after a span's last line: the lines added
    placed = [k for k, _ in _placed(list(document.items()), changes)]
    for position, key in enumerate(placed):
        if key not in changes:
            continue
        block = _block(yaml, key, changes[key])
        if key in starts:
            replaced[starts[key]] = block
            continue
        anchor = next((k for k in reversed(placed[:position]) if k in starts), None)
        at = spans[starts[anchor]][1] if anchor is not None else -1
        inserted.setdefault(at, []).extend(block)
    out: list[str] = list(inserted.get(-1, []))
    index = 0
    while index < len(lines):
        span = spans.get(index)
        if span is None:
            out.append(lines[index])
            index += 1
            continue
        out.extend(replaced[index] if index in replaced else lines[span[0] : span[1] + 1])
        out.extend(inserted.get(span[1], []))
        index = span[1] + 1
    if out and not out[-1].endswith("\n"):
        out[-1] += "\n"
    return "".join(out).encode("utf-8")


def _load_round_trip(text: str) -> Any:
    from ruamel.yaml import YAML

    return YAML().load(text)


def _ordered(starts: Mapping[str, int]) -> bool:
    values = list(starts.values())
    return values == sorted(values) and len(set(values)) == len(values)


def _spans(lines: list[str], starts: list[int]) -> dict[int, tuple[int, int]]:
    """Each top-level key's lines, first to last: up to the next key, less the comment and
    blank lines just before it (they belong to what follows)."""
    spans: dict[int, tuple[int, int]] = {}
    for position, first in enumerate(starts):
        end = starts[position + 1] - 1 if position + 1 < len(starts) else len(lines) - 1
        while end > first and _loose(lines[end]):
            end -= 1
        spans[first] = (first, end)
    return spans


def _loose(line: str) -> bool:
    """A blank line, a comment line or a document marker: never part of a value above it."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#") or stripped in ("...", "---")


def _indents(lines: list[str]) -> tuple[int, int]:
    """The file's own indentation: of a mapping nested in a top-level key, and of a sequence's
    dash under its key (``key:`` then ``- item``: 0; ``  - item``: 2). Defaults 2 and 2."""
    mapping: int | None = None
    dash: int | None = None
    for above, line in itertools.pairwise(lines):
        if above[:1] in (" ", "#", "-", "\n") or not above.rstrip().endswith(":"):
            continue
        body = line.lstrip(" ")
        spaces = len(line) - len(body)
        if body.startswith("- ") and dash is None:
            dash = spaces
        elif body.strip() and not body.startswith("#") and spaces and mapping is None:
            mapping = spaces
    return mapping or 2, 2 if dash is None else dash


def _dumper(mapping: int, dash: int) -> Any:
    from ruamel.yaml import YAML

    yaml = YAML()  # round-trip: comments, key order and quoting kept
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line
    yaml.indent(mapping=mapping, sequence=dash + 2, offset=dash)
    yaml.representer.add_representer(float, _float)
    return yaml


def _float(representer: Any, value: float) -> Any:
    """A float as YAML 1.1 reads one back (the loader's PyYAML): a dot in the mantissa
    (``5e-324`` is a string there, ``5.0e-324`` a float)."""
    text = repr(value)
    if value != value:  # noqa: PLR0124 - NaN
        text = ".nan"
    elif text in ("inf", "-inf"):
        text = text.replace("inf", ".inf")
    elif "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    elif "." not in text:
        text += ".0"
    return representer.represent_scalar("tag:yaml.org,2002:float", text)


def _block(yaml: Any, key: str, value: Any) -> list[str]:
    out = io.StringIO()
    yaml.dump({key: _quoted(value)}, out)
    return out.getvalue().splitlines(keepends=True)


def _round_trip(yaml: Any, document: Any, changes: Mapping[str, Any]) -> bytes:
    for position, (key, _) in enumerate(_placed(list(document.items()), changes)):
        if key in changes:
            if key in document:
                document[key] = _quoted(changes[key])
            else:
                document.insert(position, key, _quoted(changes[key]))
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue().encode("utf-8")


def one_line(text: str) -> str:
    return " ".join(text.split())


def _quoted(value: Any) -> Any:
    """``value`` with each string YAML 1.1 would read as something else (``yes``, ``1e3``,
    ``null``, ``2026-12-06``) double-quoted: the loader reads Cases with PyYAML (YAML 1.1),
    ruamel writes YAML 1.2, where such words are plain strings."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str):
        return DoubleQuotedScalarString(value) if _ambiguous(value) else value
    if isinstance(value, dict):
        return {_quoted(k): _quoted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_quoted(v) for v in value]
    return value


def _ambiguous(text: str) -> bool:
    import yaml

    resolver: Any = yaml.resolver.Resolver()
    tag: str = resolver.resolve(yaml.ScalarNode, text, (True, False))
    return tag != "tag:yaml.org,2002:str"
