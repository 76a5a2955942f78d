"""Input limits: depth checked before any decoder recurses, YAML aliases refused before they
expand, counts that multiply work capped."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._plugins import lock
from eval_core._util import limits
from eval_core._util.input_files import InputRefused, NotReadable, read_json_input, read_regular
from eval_core._util.limits import MAX_DEPTH, TooDeep, check_json_depth, check_yaml
from eval_release import baseline


def nested(depth: int, inner: bytes = b"1") -> bytes:
    return b"[" * depth + inner + b"]" * depth


def test_documents_at_the_limit_pass_and_one_deeper_is_refused_with_its_path() -> None:
    check_json_depth(nested(MAX_DEPTH))
    check_json_depth(b'{"a": "' + b"[" * 10_000 + b'"}')  # brackets inside a string
    with pytest.raises(TooDeep) as caught:
        check_json_depth(b'{"expect": [{"text": ' + nested(MAX_DEPTH) + b"}]}")
    assert caught.value.path.startswith("$.expect[0].text[0][0]")
    assert "nested deeper than 64 levels" in caught.value.reason


def test_a_100k_deep_document_is_refused_in_milliseconds() -> None:
    started = time.perf_counter()
    with pytest.raises(TooDeep):
        check_json_depth(nested(100_000))
    with pytest.raises(TooDeep):
        check_json_depth(b"[" * 100_000)  # unclosed: still too deep, never a RecursionError
    assert time.perf_counter() - started < 2


def test_keys_that_are_not_names_are_quoted_in_the_path() -> None:
    with pytest.raises(TooDeep) as caught:
        check_json_depth(b'{"a b": ' + nested(MAX_DEPTH) + b"}")
    assert caught.value.path.startswith('$["a b"][0]')


def test_a_yaml_alias_bomb_is_refused_before_it_expands() -> None:
    bomb = "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    started = time.perf_counter()
    with pytest.raises(TooDeep) as caught:
        check_yaml(bomb)
    assert time.perf_counter() - started < 1
    assert caught.value.path == "$.a"
    assert "anchor &a refused" in caught.value.reason


def test_a_self_referencing_alias_is_a_clear_refusal_not_a_recursion_error() -> None:
    with pytest.raises(TooDeep) as caught:
        check_yaml("expect: &loop [*loop]\n")
    assert "anchor &loop refused" in caught.value.reason


def test_deep_yaml_is_refused_with_its_path() -> None:
    check_yaml("a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1))  # the mapping is one
    with pytest.raises(TooDeep) as caught:
        check_yaml("a:\n  b: " + "[" * 500 + "]" * 500)
    assert caught.value.path.startswith("$.a.b[0][0]")


def test_input_files_name_what_they_are_when_not_regular(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for name, reason in (
        ("pipe", "named pipe"),
        ("dangling", "dangling symbolic link"),
        ("missing", "no such file"),
        (".", "a directory"),
    ):
        with pytest.raises(NotReadable, match=reason):
            read_regular(tmp_path / name)


def test_a_100k_deep_baseline_lock_and_scorecard_are_refused_with_file_and_path(
    tmp_path: Path,
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_bytes(b'{"scorecard": ' + nested(100_000) + b"}")
    with pytest.raises(InputRefused, match=r"deep.json: \$\.scorecard\[0\].*deeper than 64"):
        read_json_input(deep)
    with pytest.raises(baseline.BaselineError, match=r"deep.json: \$\.scorecard\[0\]"):
        baseline.read(deep)
    with pytest.raises(lock.LockError, match=r"deep.json: \$\.scorecard\[0\]"):
        lock.read(deep)


def test_an_eval_lock_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "eval.lock").mkdir()
    with pytest.raises(lock.LockError, match=r"eval.lock: \$: a directory"):
        lock.read(tmp_path / "eval.lock")


def test_ordinary_documents_take_the_fast_path() -> None:
    doc = json.dumps({"k": [{"v": [1, 2, {"w": []}]}] * 5000}).encode()
    started = time.perf_counter()
    for _ in range(20):
        check_json_depth(doc)
    assert time.perf_counter() - started < 2


_TEXT = st.text(alphabet=st.sampled_from('ab"\\[]{}\n'), max_size=8)
_JSON = st.recursive(
    st.none() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(_JSON, st.integers(min_value=1, max_value=12))
def test_brackets_inside_strings_never_count_toward_depth(value: object, limit: int) -> None:
    """The depth scan (cut into windows, escapes dropped pair by pair) agrees with the
    decoder on every document, strings full of quotes, backslashes and brackets included."""
    data = json.dumps(value).encode()

    def depth(v: object) -> int:
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0

    deep = depth(value) > limit
    kept = limits._WINDOW
    try:
        for window in (kept, 1, 2, 3, 5):  # however the windows fall across the strings
            limits._WINDOW = window
            try:
                check_json_depth(data, limit)
            except TooDeep:
                assert deep
            else:
                assert not deep
    finally:
        limits._WINDOW = kept


def test_a_large_document_is_scanned_in_flat_memory() -> None:
    """200,000 records of strings: the scan keeps no piece per string (it was a gigabyte)."""
    import tracemalloc

    record = b'{"caseId":"c\\"[x","trial":1,"outcome":"passed","e":[{"k":"a"}]}'
    data = b"[" + b",".join([record] * 200_000) + b"]"
    tracemalloc.start()
    check_json_depth(data, 4)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 * len(data), peak
    with pytest.raises(TooDeep):
        check_json_depth(data, 3)
