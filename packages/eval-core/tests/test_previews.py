"""A Tool call's preview read back: the value :func:`json.loads` reads from its text, whichever
decoder reads it, and nothing from a preview that was cut or is absent."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._case.previews import preview_value

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # past 64 bits too
    | st.floats(allow_nan=True, allow_infinity=True)  # NaN and Infinity: json's own spellings
    | st.text()  # lone surrogates included
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(VALUES, st.booleans())
def test_a_preview_reads_as_json_loads_reads_it(value: object, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert repr(preview_value({"json": text, "bytes": len(text)})) == repr(json.loads(text))


def test_a_cut_absent_or_unreadable_preview_is_no_value() -> None:
    assert preview_value({"json": "[1, 2", "bytes": 9, "truncated": True}) is None
    assert preview_value({"bytes": 0}) is None
    assert preview_value(None) is None
    assert preview_value({"json": "[1, 2", "bytes": 5}) is None  # not JSON
    assert preview_value({"json": b"[1]", "bytes": 3}) == [1]  # as json.loads reads bytes
