"""The argument check: jsonschema decides; the pre-check that spares its import is sound (it
never accepts what jsonschema refuses, the schema's own check included), and a schema the
subset cannot express goes to it."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator, SchemaError

from agent_runtime.turn import arguments
from agent_runtime.turn.arguments import _plainly_valid, problem

scalars = (
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.text("ab", max_size=3)
)
# Half the values are scalars: st.recursive alone draws mostly containers.
values = scalars | st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    ),
    max_leaves=8,
)
types = st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "null"])


def mostly(valid: st.SearchStrategy[Any], *invalid: Any) -> st.SearchStrategy[Any]:
    """Three draws in four a value the meta-schema allows, else one it refuses: the pre-check
    must not accept under those either."""
    return st.one_of(valid, valid, valid, st.sampled_from(invalid))


bounds = mostly(st.integers(-3, 3) | st.floats(-3, 3), "1", True)
lengths = mostly(st.integers(0, 3), -1, 1.0, True)
KEYWORDS: dict[str, st.SearchStrategy[Any]] = {
    "type": mostly(types, "no-such-type", ["string", "null"]),
    "enum": mostly(st.lists(values, min_size=1, max_size=3), "a"),
    "minimum": bounds,
    "maximum": bounds,
    "minLength": lengths,
    "maxLength": lengths,
    "pattern": mostly(st.sampled_from(["^a", "b$", "a|b", "^$"]), "[", "(?P<x", 0),
    "minItems": lengths,
    "maxItems": lengths,
    "uniqueItems": mostly(st.booleans(), "yes"),
    "description": mostly(st.text(max_size=3), 0),
    "format": st.just("email"),
    "minProperties": st.just(1),  # outside the subset: always jsonschema's
}


def schemas(depth: int = 2) -> st.SearchStrategy[Any]:
    """Schema nodes of up to three keywords, nested twice."""
    keywords = dict(KEYWORDS)
    if depth > 0:
        inner = schemas(depth - 1)
        keywords |= {
            "properties": st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
            "required": mostly(st.lists(st.sampled_from("abc"), max_size=2), "a"),
            "additionalProperties": mostly(inner, 0),
            "items": inner,
        }
    node = st.lists(st.sampled_from(sorted(keywords)), max_size=3, unique=True).flatmap(
        lambda chosen: st.fixed_dictionaries({k: keywords[k] for k in chosen})
    )
    return st.one_of(node, node, node, st.booleans())


def accepts(schema: Any, value: Any) -> bool:
    """jsonschema's verdict: the schema passes its own check and the value conforms."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return Draft202012Validator(schema).is_valid(value)


@settings(max_examples=600, deadline=None)
@given(schema=schemas(), value=values)
@example(schema={"enum": [[1]]}, value=[True])  # jsonschema tells True from 1 inside lists
@example(schema={"uniqueItems": True}, value=[1, True])
@example(schema={"pattern": "^a"}, value="b")  # each keyword's own refusal, at least once
@example(schema={"minLength": 2}, value="a")
@example(schema={"maxLength": 1}, value="ab")
@example(schema={"minItems": 1}, value=[])
@example(schema={"maxItems": 0}, value=["a"])
@example(schema={"minimum": 0}, value=-1)
@example(schema={"maximum": 0}, value=0.5)
@example(schema={"uniqueItems": True}, value=["a", "a"])
def test_the_pre_check_never_accepts_what_jsonschema_refuses(schema: Any, value: Any) -> None:
    if _plainly_valid(schema, value):
        assert accepts(schema, value), (schema, value)
    assert (problem(schema, value) is None) == accepts(schema, value)


def test_the_pre_check_accepts_the_common_schemas_alone() -> None:
    """What the Eval Soul's Tools declare (lengths, patterns, unique lists of strings) never
    needs jsonschema when the arguments conform."""
    schema = {
        "type": "object",
        "properties": {
            "ticketId": {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^T-"},
            "tags": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "maxItems": 5,
                "uniqueItems": True,
            },
            "amount": {"type": "number", "minimum": 0},
        },
        "required": ["ticketId"],
        "additionalProperties": False,
    }
    assert _plainly_valid(schema, {"ticketId": "T-1", "tags": ["a", "b"], "amount": 2.5})
    annotated = {**schema, "examples": [{"ticketId": "T-1"}], "description": "A ticket."}
    assert _plainly_valid(annotated, {"ticketId": "T-1"})  # annotations, as generated schemas carry
    assert not _plainly_valid(schema, {"ticketId": "T-1", "tags": ["a", "a"]})
    assert not _plainly_valid({**schema, "required": ["ticketId", "ticketId"]}, {"ticketId": "T-1"})


def test_an_invalid_schema_is_named_as_such() -> None:
    assert problem({"type": "no-such-type"}, {}) == (
        "the Tool's input schema is itself invalid: 'no-such-type' is not valid under any of "
        "the given schemas"
    )


def test_a_schema_that_refers_to_itself_without_end_refuses_the_call() -> None:
    """An MCP server's schema is untrusted: one that recurses forever is a refusal, not a crash."""
    reason = "the Tool's input schema cannot be applied: it nests or refers to itself too deeply"
    assert problem({"$ref": "#"}, {"a": 1}) == reason
    deep: dict[str, Any] = {}
    for _ in range(5_000):
        deep = {"items": deep}
    assert problem(deep, [1]) == reason


def test_a_schemas_soundness_is_its_own() -> None:
    """Soundness is remembered per schema object: an unsound schema after a sound one of the
    same shape is still refused, and the memory stays bounded."""
    sound = {"type": "object", "properties": {"n": {"type": "integer"}}}
    unsound = {"type": "object", "properties": {"n": {"type": "no-such-type"}}}
    for _ in range(2):
        assert problem(sound, {"n": 1}) is None
        assert (problem(unsound, {"n": 1}) or "").startswith("the Tool's input schema is itself")
    for index in range(arguments._SOUND_KEPT + 10):
        assert problem({"type": "object", "description": str(index)}, {}) is None
    assert len(arguments._SOUND) <= arguments._SOUND_KEPT
