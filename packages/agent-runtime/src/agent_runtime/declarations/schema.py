"""The JSON Schema pieces every domain's declarations are written with."""

from __future__ import annotations

from typing import Any


def object_schema(properties: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    """An object with exactly these properties: nothing else is accepted."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}
