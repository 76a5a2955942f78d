"""Safe text: lone surrogates, control characters and ANSI escapes made harmless, once."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._running.scorecard import encoded, made_safe
from eval_core._running.trial import TrialResult
from eval_core._util.safe_text import clean, clean_builtins, clean_value


def test_a_lone_surrogate_becomes_the_replacement_character() -> None:
    assert clean("smile \ud83d!") == "smile \ufffd!"
    assert clean("pair \ud83d\ude00") == "pair \U0001f600"  # a split pair is joined


def test_escape_sequences_and_controls_become_visible_stand_ins() -> None:
    assert clean("\x1b[31mred\x1b[0m") == "\u241b[31mred\u241b[0m"
    assert clean("a\x00b\x07c\x7fd\x9be") == "a\u2400b\u2407c\u2421d\\x9be"
    assert clean("line\r\nnext\roverwrite") == "line\nnext\u240doverwrite"
    assert clean("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert clean("\ufffe\uffff") == "\ufffd\ufffd"


def test_clean_text_is_returned_unchanged() -> None:
    text = "Order 42 ships within 2 business days. ✓ 😀"
    assert clean(text) is text


def test_values_are_cleaned_keys_included() -> None:
    assert clean_value({"k\x1b": ["\ud83d", 1, None]}) == {"k\u241b": ["\ufffd", 1, None]}


HOSTILE = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"]),
        st.characters(max_codepoint=0x9F),
        st.sampled_from("\x1b\r\n\t\ufffe\uffff"),
    )
)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(HOSTILE)
def test_clean_text_encodes_as_utf8_xml_and_json_and_is_idempotent(text: str) -> None:
    safe = clean(text)
    safe.encode("utf-8")
    msgspec.json.encode(safe)
    element = ET.Element("e", attr=safe)
    element.text = safe
    ET.fromstring(ET.tostring(element, encoding="utf-8"))
    assert clean(safe) == safe
    assert not any(ord(c) < 0x20 and c not in "\t\n" for c in safe)


def test_admit_makes_every_text_field_of_a_trial_safe() -> None:
    raw = TrialResult(
        case_id="c",
        trial=1,
        outcome="errored",
        output="\ud83d\x1b[2J",
        error="model_malformed_response: \x00",
        loop_reason="\x07",
    )
    safe = made_safe(raw)
    assert msgspec.json.encode(safe)  # the raw one raises UnicodeEncodeError
    assert safe.output == "\ufffd\u241b[2J"
    assert safe.error == "model_malformed_response: \u2400"


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.recursive(
        HOSTILE | st.integers() | st.none(),
        lambda inner: st.lists(inner) | st.dictionaries(HOSTILE, inner),
        max_leaves=8,
    )
)
def test_the_fast_path_cleans_exactly_as_the_walk_does(value: object) -> None:
    assert clean_builtins(value) == clean_value(value)


def test_clean_builtins_are_returned_as_they_are() -> None:
    value = {"kind": "output_contains", "text": ["ok ✓", 1, None, {"a": "b\tc\n"}]}
    assert clean_builtins(value) is value
    assert clean_builtins({"k": "back\\slash u"}) == {"k": "back\\slash u"}  # a false alarm


@settings(max_examples=100, deadline=None, derandomize=True)
@given(HOSTILE, HOSTILE)
def test_admit_returns_a_clean_trial_as_it_is_and_cleans_any_other(output: str, line: str) -> None:
    raw = TrialResult(case_id="c", trial=1, outcome="failed", output=output, contradictions=[line])
    safe = made_safe(raw)
    assert safe.output == clean(output) and safe.contradictions == [clean(line)]
    if clean(output) == output and clean(line) == line and "\\" not in output + line:
        assert safe is raw  # nothing to clean: no copy
    assert encoded(safe) == msgspec.json.encode(safe)  # what the trial log writes of it


def test_the_trial_log_reuses_the_json_admit_read() -> None:
    raw = TrialResult(case_id="c", trial=1, outcome="passed", output="fine")
    assert made_safe(raw) is raw
    assert encoded(raw) is encoded(raw)  # made once, by made_safe
    other = TrialResult(case_id="d", trial=1, outcome="passed")
    assert encoded(other) == msgspec.json.encode(other) and encoded(other) is not encoded(other)
