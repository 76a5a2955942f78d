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
    before, after = _read(data, json_file), _read(out, json_file)
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
    for key, value in changes.items():
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
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError
    from ruamel.yaml.util import load_yaml_guess_indent

    try:
        text = data.decode("utf-8")
        document, indent, block_seq_indent = load_yaml_guess_indent(text)
    except (UnicodeDecodeError, YAMLError) as exc:
        raise RewriteRefused(f"not YAML: {one_line(str(exc))}") from None
    if not isinstance(document, CommentedMap):
        raise RewriteRefused("not a YAML mapping")
    placed = _placed(list(document.items()), changes)
    for position, (key, _) in enumerate(placed):
        if key in changes:
            if key in document:
                document[key] = _quoted(changes[key])
            else:
                document.insert(position, key, _quoted(changes[key]))
    yaml = YAML()  # round-trip: comments, key order and quoting kept
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long line the file kept whole
    sequence = block_seq_indent or 0
    mapping = indent or 2
    yaml.indent(mapping=mapping, sequence=max(mapping, sequence + 2), offset=sequence)
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
