"""eval_core._util.paths: dot paths, JSON found in model text, JSON equality, quoting."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_core._util.paths import (
    compact_json,
    deep_equal,
    extract_json,
    path_problem,
    quote,
    render,
    resolve,
)

DOC: dict[str, Any] = {"a": {"b": [10, {"c": None}], "0": "zero"}, "$": 1, "list": []}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


class TestResolve:
    def test_dollar_is_the_whole_value(self) -> None:
        assert resolve(DOC, "$") == (True, DOC)
        assert resolve(None, "$") == (True, None)

    @pytest.mark.parametrize("path", ["a.b.1.c", "$.a.b.1.c"])
    def test_dot_path_with_list_index(self, path: str) -> None:
        assert resolve(DOC, path) == (True, None)  # found, and the value is null

    def test_numeric_segment_is_a_key_on_objects(self) -> None:
        assert resolve(DOC, "a.0") == (True, "zero")
        assert resolve(DOC, "a.b.0") == (True, 10)

    @pytest.mark.parametrize(
        "path",
        ["missing", "a.x", "a.b.2", "a.b.-1", "a.b.x", "a.b.0.c", "list.0", "", "a..b", "a.", "$."],
    )
    def test_missing_or_malformed_is_not_found(self, path: str) -> None:
        assert resolve(DOC, path) == (False, None)

    def test_unicode_digits_do_not_index(self) -> None:
        assert resolve([1, 2, 3], "²") == (False, None)

    def test_scalars_have_no_children(self) -> None:
        assert resolve("text", "0") == (False, None)
        assert resolve(5, "a") == (False, None)

    def test_path_problem(self) -> None:
        assert path_problem("a.b.0") is None
        assert path_problem("$") is None
        assert path_problem("") is not None
        assert path_problem("a..b") is not None

    @given(json_values, st.text(max_size=12))
    def test_total(self, value: Any, path: str) -> None:
        ok, _ = resolve(value, path)
        assert isinstance(ok, bool)


class TestExtractJson:
    def test_json_fence(self) -> None:
        assert extract_json('Here:\n```json\n{"a": 1}\n```\nDone.') == (True, {"a": 1})

    def test_bare_fence(self) -> None:
        assert extract_json("```\n[1, 2]\n```") == (True, [1, 2])

    def test_first_parsable_fence_wins(self) -> None:
        text = '```\nnot json\n```\n```json\n{"b": 2}\n```\n```json\n{"c": 3}\n```'
        assert extract_json(text) == (True, {"b": 2})

    def test_fence_before_whole_text(self) -> None:
        # The whole text is not JSON here, but were it, a fence still comes first.
        assert extract_json('```json\n{"a": 1}\n```') == (True, {"a": 1})

    def test_whole_trimmed_text(self) -> None:
        assert extract_json('  \n {"a": [1, 2]}\n ') == (True, {"a": [1, 2]})
        assert extract_json(" 42 ") == (True, 42)
        assert extract_json("true") == (True, True)

    def test_balanced_object_in_prose(self) -> None:
        assert extract_json('The result is {"a": {"b": 2}} as asked.') == (True, {"a": {"b": 2}})

    def test_balanced_array_in_prose(self) -> None:
        assert extract_json("ids: [1, [2, 3]] and more") == (True, [1, [2, 3]])

    def test_braces_inside_strings_are_ignored(self) -> None:
        text = 'Answer: {"note": "a } and a { and \\" quote ]", "n": 1} end }'
        assert extract_json(text) == (True, {"note": 'a } and a { and " quote ]', "n": 1})

    def test_later_balanced_span_when_an_earlier_one_is_not_json(self) -> None:
        assert extract_json('see [note] then {"a": 1}') == (True, {"a": 1})

    @pytest.mark.parametrize(
        "text", ["", "no json here", "{unclosed", '{"a": 1', "[1, 2}", "```\n```"]
    )
    def test_nothing_parsable(self, text: str) -> None:
        assert extract_json(text) == (False, None)

    def test_too_deep_is_not_parsable_and_does_not_raise(self) -> None:
        ok, _ = extract_json("[" * 5000 + "]" * 5000)
        assert isinstance(ok, bool)

    @given(st.text(alphabet=st.sampled_from(list('{}[]"\\`json: 1a\n')), max_size=40))
    def test_total(self, text: str) -> None:
        ok, _ = extract_json(text)
        assert isinstance(ok, bool)

    @given(json_values)
    def test_round_trip(self, value: Any) -> None:
        assert extract_json(msgspec.json.encode(value).decode()) == (True, value)


class TestDeepEqual:
    def test_numbers_by_value(self) -> None:
        assert deep_equal(1, 1.0)
        assert deep_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
        assert not deep_equal(1, 2)

    def test_booleans_only_equal_booleans(self) -> None:
        assert not deep_equal(True, 1)
        assert not deep_equal(1.0, True)
        assert not deep_equal(False, 0)
        assert deep_equal(False, False)
        assert not deep_equal([True], [1])

    def test_structures(self) -> None:
        assert deep_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})
        assert not deep_equal({"a": 1}, {"a": 1, "b": None})
        assert not deep_equal([1, 2], [2, 1])
        assert not deep_equal([1], {"0": 1})
        assert not deep_equal(None, 0)
        assert not deep_equal("1", 1)
        assert deep_equal(None, None)

    def test_deep_nesting_does_not_raise(self) -> None:
        deep: Any = 1
        for _ in range(5000):
            deep = [deep]
        assert deep_equal(deep, deep)

    @given(json_values)
    def test_reflexive(self, value: Any) -> None:
        assert deep_equal(value, value)

    @given(json_values, json_values)
    def test_symmetric(self, a: Any, b: Any) -> None:
        assert deep_equal(a, b) == deep_equal(b, a)

    @given(json_values, json_values)
    def test_agrees_with_the_rule_written_out(self, a: Any, b: Any) -> None:
        assert deep_equal(a, b) == _json_equal(a, b)
        assert deep_equal(a, a) == _json_equal(a, a)


def _json_equal(a: Any, b: Any) -> bool:
    """The rule deep_equal implements, recursively: booleans only to booleans, numbers by
    value, objects by key set and values, arrays by order, anything else by type and ==."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) or isinstance(b, int | float):
        return isinstance(a, int | float) and isinstance(b, int | float) and a == b
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(_json_equal(a[k], b[k]) for k in a)
        )
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list)
            and isinstance(b, list)
            and len(a) == len(b)
            and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
        )
    return type(a) is type(b) and a == b


class TestQuote:
    def test_collapses_whitespace(self) -> None:
        assert quote("  a\n\n b\t c  ") == "a b c"

    def test_truncates_with_ellipsis(self) -> None:
        out = quote("x" * 300)
        assert len(out) == 240
        assert out.endswith("…")
        assert quote("abcdef", limit=4) == "abc…"

    def test_short_text_untouched(self) -> None:
        assert quote("short") == "short"

    def test_render(self) -> None:
        assert render({"a": [1, True, None]}) == '{"a":[1,true,null]}'
        assert render(object()).startswith("<object")
        assert compact_json(object()) is None
