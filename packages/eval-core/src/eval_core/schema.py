"""The JSON Schema of a Case for the installed plug-in set, so editors validate as you type."""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core.plugins import PluginSet

SCHEMA_PATH = "schema/case.schema.json"


def case_schema(plugins: PluginSet) -> dict[str, Any]:
    schema: dict[str, Any] = msgspec.json.schema(plugins.case_type)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Eval Case"
    return schema


def render(plugins: PluginSet) -> bytes:
    encoded = msgspec.json.encode(case_schema(plugins), order="sorted")
    return msgspec.json.format(encoded, indent=2) + b"\n"
