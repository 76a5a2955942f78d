"""Recording changes a Case file's ``script``, ``recorded`` and ``toolResults`` and nothing else:
every other field keeps its value and the keys their order, for arbitrary JSON and YAML Cases;
JSON keeps its indentation, YAML its comments and every other line byte for byte."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_record.rewrite import RewriteRefused, rewrite

CHANGED = ("script", "recorded", "toolResults")
KEYS = [
    "$schema", "id", "tier", "agent", "input", "context", "tools", "platformTools",
    "toolResults", "script", "recorded", "trials", "expect", "journey", "mcp", "files",
]  # fmt: skip

readable = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029")
texts = st.text(readable | st.sampled_from("\n\t"), max_size=12)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(texts, kids, max_size=3),
    max_leaves=8,
)
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
any_values = st.recursive(
    st.none() | st.booleans() | st.integers() | any_text,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(any_text, kids, max_size=3),
    max_leaves=8,
)
names = st.sampled_from(KEYS) | st.text(string.ascii_letters, min_size=1, max_size=8)


@st.composite
def cases(draw: st.DrawFn, fields: st.SearchStrategy[Any] = values) -> dict[str, Any]:
    keys = draw(st.lists(names, unique=True, min_size=1, max_size=8))
    return {key: draw(fields) for key in keys}


@st.composite
def changes(draw: st.DrawFn, fields: st.SearchStrategy[Any] = values) -> dict[str, Any]:
    chosen = draw(st.lists(st.sampled_from(CHANGED), unique=True, min_size=1))
    return {
        key: draw(st.lists(fields, max_size=3) | st.dictionaries(texts, fields, max_size=3))
        for key in chosen
    }


def kept(before: dict[str, Any], after: dict[str, Any], changed: dict[str, Any]) -> None:
    """Every other field unchanged, every key where it was, each change in place."""
    assert {k: v for k, v in after.items() if k not in changed} == {
        k: v for k, v in before.items() if k not in changed
    }
    assert [k for k in after if k in before] == list(before)  # the file's key order
    assert [k for k in after if k not in changed] == [k for k in before if k not in changed]
    assert {k: after[k] for k in changed} == changed


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    cases(),
    changes(),
    st.sampled_from([None, 2, 4, "\t"]),
    st.booleans(),
    st.booleans(),
)
def test_json_keeps_every_other_field_the_key_order_and_the_indentation(
    case: dict[str, Any], changed: dict[str, Any], indent: Any, ascii_only: bool, newline: bool
) -> None:
    text = json.dumps(case, indent=indent, ensure_ascii=ascii_only) + ("\n" if newline else "")
    out = rewrite(Path("c.json"), text.encode(), changed).decode()
    kept(case, json.loads(out), changed)
    assert out.endswith("\n") == newline
    if indent is not None:
        unit = indent if isinstance(indent, str) else " " * indent
        assert out.startswith("{\n" + unit + '"')  # the file's own indentation
    else:
        assert "\n" not in out.rstrip("\n")  # one line stays one line


def yaml_case(case: dict[str, Any]) -> tuple[str, list[str], list[str]]:
    """The Case as YAML: a comment above each key and one at the end; its comments and the
    lines of each key, as written."""
    lines: list[str] = []
    comments: list[str] = []
    blocks: list[str] = []
    for index, (key, value) in enumerate(case.items()):
        comments.append(f"# about field {index}: {key}")
        block = yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True, width=4096)
        lines += [comments[-1], block.rstrip("\n")]
        blocks.append(block)
    comments.append("# the end")
    lines.append(comments[-1])
    return "\n".join(lines) + "\n", comments, blocks


@SETTINGS
@given(cases(), changes())
def test_yaml_keeps_every_other_field_the_key_order_its_comments_and_its_lines(
    case: dict[str, Any], changed: dict[str, Any]
) -> None:
    text, comments, blocks = yaml_case(case)
    out = rewrite(Path("c.yaml"), text.encode(), changed).decode()
    kept(yaml.safe_load(text), yaml.safe_load(out), changed)
    at = [out.index(comment + "\n") for comment in comments]
    assert at == sorted(at)  # every comment kept, in its order
    for key, block in zip(case, blocks, strict=True):
        if key not in changed:
            assert block in out  # an unchanged field's lines, byte for byte


@SETTINGS
@given(cases(any_values), changes(any_values), st.booleans())
def test_whatever_a_model_said_the_file_is_faithful_or_not_written(
    case: dict[str, Any], changed: dict[str, Any], as_yaml: bool
) -> None:
    """Any text at all (controls, YAML 1.1 words like ``yes`` or ``0o17``): the file written
    reads back as the recorded Case, or rewrite refuses; never a Case that means otherwise."""
    if as_yaml:
        data = yaml.safe_dump(case, sort_keys=False, allow_unicode=True).encode()
    else:
        data = json.dumps(case, indent=2).encode()
    path = Path("c.yaml" if as_yaml else "c.json")
    try:
        out = rewrite(path, data, changed)
    except RewriteRefused:
        return

    def read(data: bytes) -> Any:  # as the loader reads a Case file
        return yaml.safe_load(data) if as_yaml else json.loads(data)

    kept(read(data), read(out), changed)


def test_yaml_words_are_quoted_so_the_loader_reads_them_as_text() -> None:
    source = b"id: c\nagent: a\n# the model's words follow\nexpect:\n  - kind: loop_status\n"
    script = [
        {"kind": "text", "text": word} for word in ("yes", "no", "on", "null", "1e3", "2026-12-06")
    ]
    out = rewrite(Path("c.yaml"), source, {"script": script})
    assert yaml.safe_load(out)["script"] == script
    assert out.startswith(b"id: c\nagent: a\nscript:\n")  # after input, else after agent
    assert b"# the model's words follow\nexpect:\n  - kind: loop_status\n" in out


def test_a_field_the_file_lacks_goes_after_its_anchor() -> None:
    source = json.dumps({"id": "c", "agent": "a", "input": [], "tools": [], "expect": []}, indent=2)
    out = json.loads(
        rewrite(Path("c.json"), source.encode(), {"recorded": {}, "script": [], "toolResults": []})
    )
    assert list(out) == [
        "id",
        "agent",
        "input",
        "script",
        "recorded",
        "tools",
        "toolResults",
        "expect",
    ]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("c.json", b"[1, 2]", "not a JSON object"),
        ("c.json", b"{", "not JSON"),
        ("c.yaml", b"- 1\n", "not a YAML mapping"),
        ("c.yaml", b"a: [\n", "not YAML"),
    ],
)
def test_what_is_not_a_case_mapping_is_refused_in_one_line(
    name: str, data: bytes, reason: str
) -> None:
    with pytest.raises(RewriteRefused, match=reason) as refused:
        rewrite(Path(name), data, {"script": []})
    assert "\n" not in str(refused.value)
