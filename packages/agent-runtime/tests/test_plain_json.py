"""A Turn's JSON (previews, argument digests, repeated-call comparison) is what :mod:`json`
writes, whichever encoder spelt it: msgspec for a plain value, :mod:`json` for anything else
(floats, lone surrogates, keys that are not strings, values only ``default`` can show)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_runtime.turn import plain_json
from agent_runtime.turn.events import canonical_digest, compact_json, preview

TEXT = st.text(max_size=12)  # every code point, lone surrogates and controls included
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),  # past msgspec's 64 bits too
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
KEYS = st.one_of(TEXT, st.integers(-5, 5), st.booleans(), st.none(), st.floats(-2, 2))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(KEYS, inner, max_size=4),
    ),
    max_leaves=16,
)
CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str)


def _as_json(encoder: json.JSONEncoder, value: Any) -> str | type[BaseException]:
    try:
        return encoder.encode(value)
    except (TypeError, ValueError) as exc:  # mixed keys json cannot sort: the same refusal
        return type(exc)


@given(VALUES)
def test_every_value_is_spelt_as_json_spells_it(value: Any) -> None:
    sort = plain_json.encoder(sort_keys=True, default=str)
    keep = plain_json.encoder(sort_keys=False, default=str)
    for ours, theirs in ((sort, CANONICAL), (keep, COMPACT)):
        try:
            got: str | type[BaseException] = ours(value)
        except (TypeError, ValueError) as exc:
            got = type(exc)
        assert got == _as_json(theirs, value)


@given(VALUES)
def test_a_previews_text_and_size_are_json_s(value: Any) -> None:
    text = COMPACT.encode(value)
    assert compact_json(value) == text
    try:
        size = len(text.encode())
    except UnicodeEncodeError:  # a lone surrogate: refused as before
        with pytest.raises(UnicodeEncodeError):
            preview(value)
        return
    if size <= 65_536:
        assert preview(value) == {"json": text, "bytes": size}


def test_a_plain_value_takes_msgspec_and_others_json() -> None:
    assert plain_json.plain({"a": [1, "x", None, True, {"b": 2**63}]})
    for other in (1.5, 1e16, {1: "a"}, ("a",), 2**64, object(), {"a": [0.5]}):
        assert not plain_json.plain(other)
    value = {"b": 1, "a": ["é", "\n", 1e16]}
    expected = hashlib.sha256(CANONICAL.encode(value).encode()).hexdigest()
    assert canonical_digest(value) == f"sha256:{expected}"
