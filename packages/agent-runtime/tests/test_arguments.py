"""The argument check: jsonschema decides; the pre-check that spares its import is sound (it
never accepts what jsonschema refuses), and a schema the subset cannot express goes to it."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agent_runtime.arguments import _plainly_valid, problem

scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.text(max_size=3)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=8,
)
types = st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "null"])


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    leaf = st.fixed_dictionaries(
        {},
        optional={
            "type": types,
            "enum": st.lists(scalars, min_size=1, max_size=3),
            "minimum": st.integers(-3, 3),
            "maximum": st.integers(-3, 3),
            "description": st.text(max_size=3),
            "pattern": st.just("^a"),  # outside the subset: always jsonschema's
        },
    )
    if depth == 0:
        return leaf
    inner = schemas(depth - 1)
    return st.fixed_dictionaries(
        {},
        optional={
            "type": types,
            "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
            "required": st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
            "additionalProperties": st.booleans() | inner,
            "items": inner,
        },
    )


@settings(max_examples=300, deadline=None)
@given(schema=schemas(), value=values)
def test_the_pre_check_never_accepts_what_jsonschema_refuses(
    schema: dict[str, Any], value: Any
) -> None:
    if _plainly_valid(schema, value):
        assert Draft202012Validator(schema).is_valid(value), (schema, value)
    assert (problem(schema, value) is None) == Draft202012Validator(schema).is_valid(value)


def test_an_invalid_schema_is_named_as_such() -> None:
    assert problem({"type": "no-such-type"}, {}) == (
        "the Tool's input schema is itself invalid: 'no-such-type' is not valid under any of "
        "the given schemas"
    )
