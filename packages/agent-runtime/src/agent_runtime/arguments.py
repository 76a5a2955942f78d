"""Tool arguments checked against the Tool's input schema before the Tool ever sees them.

The model's arguments are untrusted: a call whose arguments do not match the Tool's
``input_schema`` is answered ``invalid_arguments`` with what is wrong, and the loop's repair path
runs. ``jsonschema`` (the reference implementation; it interprets a schema rather than
compiling it to code, which matters because a Case's schemas are untrusted input too) decides
every rejection and every schema outside a small common subset. Importing it costs about a
quarter of a second, so a conservative pre-check first accepts arguments that plainly conform to
a schema of that subset (types, properties, required, additionalProperties, enum, bounds,
items); it never rejects anything itself.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

_ANNOTATIONS = frozenset({"description", "title", "examples", "default", "format", "$comment"})
_SUBSET = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
    "items",
}
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def _plainly_valid(schema: Any, value: Any) -> bool:
    """True only when ``value`` certainly conforms; ``False`` means "ask jsonschema"."""
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, dict) or not schema.keys() <= _SUBSET:
        return False
    kind = schema.get("type")
    if kind is not None:
        wanted = _TYPES.get(kind) if isinstance(kind, str) else None
        if wanted is None or not isinstance(value, wanted):
            return False
        if isinstance(value, bool) and kind in ("integer", "number"):
            return False
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        return False
    for bound, sign in (("minimum", 1), ("maximum", -1)):
        if bound in schema:
            limit = schema[bound]
            numbers = (value, limit)
            if any(not isinstance(n, int | float) or isinstance(n, bool) for n in numbers):
                return False
            if (value - limit) * sign < 0:
                return False
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            return False
        required = schema.get("required", [])
        if not isinstance(required, list) or any(name not in value for name in required):
            return False
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                if not _plainly_valid(properties[name], item):
                    return False
            elif extra is False or (extra is not True and not _plainly_valid(extra, item)):
                return False
    if isinstance(value, list) and "items" in schema:
        return all(_plainly_valid(schema["items"], item) for item in value)
    return True


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


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
    except SchemaError as invalid:
        return f"the Tool's input schema is itself invalid: {invalid.message}"
    found = exceptions.best_match(validator.iter_errors(arguments))
    if found is None:
        return None
    where = ".".join(str(p) for p in found.absolute_path)
    return f"{where}: {found.message}" if where else found.message
