"""Tool arguments checked against the Tool's input schema before the Tool ever sees them.

The model's arguments are untrusted: a call whose arguments do not match the Tool's
``input_schema`` is answered ``invalid_arguments`` with what is wrong, and the loop's repair path
runs. ``jsonschema`` (the reference implementation; it interprets a schema rather than
compiling it to code, which matters because a Case's schemas are untrusted input too) decides
every rejection and every schema outside a small common subset. Importing it costs about a
quarter of a second, so a conservative pre-check first accepts arguments that plainly conform to
a schema of that subset (types, properties, required, additionalProperties, enum, bounds,
lengths, pattern, items, unique strings); it never rejects anything itself, and it accepts only
under keywords whose own values are valid, since it stands in for the schema's check too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}
_TEXTS = frozenset({"description", "title", "format", "$comment"})
_LENGTHS = frozenset({"minLength", "maxLength", "minItems", "maxItems"})
_DEPTH = 32
"""Deeper schemas are left to jsonschema."""


_SOUND: dict[int, tuple[Any, bool]] = {}
_SOUND_KEPT = 512


def _plainly_valid(schema: Any, value: Any) -> bool:
    """True only when ``schema`` is sound and ``value`` certainly conforms; ``False`` means
    "ask jsonschema"."""
    return _sound_schema(schema) and _conforms(schema, value)


def _sound_schema(schema: Any) -> bool:
    """:func:`_sound`, remembered per schema object: a Tool's schema is declared once and
    checked on every call of it (the entry holds the schema, so its id is not reused)."""
    kept = _SOUND.get(id(schema))
    if kept is not None and kept[0] is schema:
        return kept[1]
    sound = _sound(schema, 0)
    if len(_SOUND) >= _SOUND_KEPT:
        _SOUND.clear()
    _SOUND[id(schema)] = (schema, sound)
    return sound


def _sound(schema: Any, depth: int) -> bool:
    """Whether ``schema`` and every subschema, used or not, are of the subset and valid under
    the meta-schema: the pre-check stands in for jsonschema's check of the schema too."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > _DEPTH:
        return False
    return all(_keyword_sound(key, item, depth + 1) for key, item in schema.items())


def _keyword_sound(key: str, item: Any, depth: int) -> bool:
    """Whether one keyword of the subset has a valid value (an unknown keyword: never)."""
    check = _KEYWORDS.get(key)
    return check is not None and check(item, depth)


def _properties_sound(item: Any, depth: int) -> bool:
    return isinstance(item, dict) and all(_sound(s, depth) for s in item.values())


def _text(item: Any, _depth: int) -> bool:
    return isinstance(item, str)


def _length(item: Any, _depth: int) -> bool:
    return type(item) is int and item >= 0


_KEYWORDS: dict[str, Callable[[Any, int], bool]] = {
    "type": lambda item, _: isinstance(item, str) and item in _TYPES,
    "properties": _properties_sound,
    "required": lambda item, _: isinstance(item, list) and _distinct_strings(item),
    "additionalProperties": _sound,
    "items": _sound,
    "examples": lambda item, _: isinstance(item, list),
    "enum": lambda item, _: isinstance(item, list),
    "minimum": lambda item, _: _number(item),
    "maximum": lambda item, _: _number(item),
    "pattern": lambda item, _: isinstance(item, str) and _compiles(item),
    "uniqueItems": lambda item, _: isinstance(item, bool),
    "default": lambda _item, _: True,
    **dict.fromkeys(_TEXTS, _text),
    **dict.fromkeys(_LENGTHS, _length),
}
"""The subset's keywords, each with the test of its own value."""


def _conforms(schema: Any, value: Any) -> bool:
    """Whether ``value`` certainly conforms to a sound ``schema``: each keyword applies to the
    values it applies to in jsonschema, and where its test is subtler the answer is no."""
    if isinstance(schema, bool):
        return schema
    kind = schema.get("type")
    if kind is not None and not isinstance(value, _TYPES[kind]):
        return False
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        return False
    if _number(value) and (
        value < schema.get("minimum", value) or value > schema.get("maximum", value)
    ):
        return False
    return _shape_conforms(schema, value)


def _shape_conforms(schema: dict[str, Any], value: Any) -> bool:
    """What a string, an object or an array must also satisfy."""
    if isinstance(value, str):
        return _string_conforms(schema, value)
    if isinstance(value, dict):
        return _object_conforms(schema, value)
    if isinstance(value, list):
        return _array_conforms(schema, value)
    return True


def _string_conforms(schema: dict[str, Any], value: str) -> bool:
    if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", len(value)):
        return False
    return "pattern" not in schema or re.search(schema["pattern"], value) is not None


def _object_conforms(schema: dict[str, Any], value: dict[str, Any]) -> bool:
    if any(name not in value for name in schema.get("required", ())):
        return False
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    return all(_conforms(properties.get(name, extra), item) for name, item in value.items())


def _array_conforms(schema: dict[str, Any], value: list[Any]) -> bool:
    if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
        return False
    if schema.get("uniqueItems") and not _distinct_strings(value):
        return False
    return all(_conforms(schema.get("items", True), item) for item in value)


_NUMBERS = (int, float)
_CONTAINERS = (list, dict)


def _number(value: Any) -> bool:
    return isinstance(value, _NUMBERS) and not isinstance(value, bool)


def _same(a: Any, b: Any) -> bool:
    """Plainly equal scalars (jsonschema's equality of containers is subtler: ask it)."""
    return type(a) is type(b) and not isinstance(a, _CONTAINERS) and a == b


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _distinct_strings(value: list[Any]) -> bool:
    return all(isinstance(item, str) for item in value) and len(set(value)) == len(value)


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    from jsonschema import validators

    schema = json.loads(schema_json)
    cls = validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def problem(schema: dict[str, Any], arguments: Any) -> str | None:
    """Why ``arguments`` do not match ``schema`` (the validator's own words), or ``None``."""
    if _plainly_valid(schema, arguments):
        return None
    from jsonschema import SchemaError, exceptions

    try:
        validator = _validator(json.dumps(schema, sort_keys=True))
        found = exceptions.best_match(validator.iter_errors(arguments))
    except SchemaError as invalid:
        return f"the Tool's input schema is itself invalid: {invalid.message}"
    except RecursionError:  # {"$ref": "#"} is a valid schema that never ends
        return "the Tool's input schema cannot be applied: it nests or refers to itself too deeply"
    if found is None:
        return None
    where = ".".join(str(p) for p in found.absolute_path)
    return f"{where}: {found.message}" if where else found.message
