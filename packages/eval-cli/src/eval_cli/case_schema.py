"""The JSON Schema of a Case for the installed plug-in set, so editors validate as you type.

msgspec's schema says the types; this adds what JSON Schema can also say of the loader's rules:
non-empty ``input`` and ``expect``, ``trials`` bounds, non-empty names and call ids, kinds and
Case fields refused at a tier (``if``/``then`` on ``tier``), each kind's and field's own value
rules (:attr:`~eval_core.kinds.KindSpec.json_schema`), ``format: regex`` on a grounded regex,
and every kind's and field's description and examples, shown on hover.

What it cannot say, and the loader still refuses: an ``id`` that is not the file stem; an agent
the Eval Soul lacks; a ``context`` key the Host does not allow; a platform Tool that does not
resolve; a Tool declared twice or a ``callId`` used twice; a scripted result for an undeclared
Tool; an ungrounded content Expectation; a Host service a fixture needs; the cross-field rules
plug-ins check in ``eval_check_case``; and a Corpus's total Trials.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from eval_core.commands import ALL_TIERS, MAX_TRIALS_PER_CASE, PluginSet
from eval_core.kinds import KindSpec, json_name

SCHEMA_PATH = "schema/case.schema.json"

_NAMED: dict[str, Any] = {"minLength": 1, "pattern": r"\S"}
GENERIC: dict[str, dict[str, Any]] = {
    "id": {
        **_NAMED,
        "description": "The Case's id: it must equal the file's stem (`id.json`).",
    },
    "tier": {
        "description": "l2: in memory through the real assembler and tool loop; l3: a durable "
        "Turn on a real embedded database."
    },
    "agent": {**_NAMED, "description": "The Eval Soul's agent that answers (its slug)."},
    "input": {"minItems": 1, "description": "The conversation so far: at least one message."},
    "script": {"description": "What the scripted model answers, one step per model call."},
    "expect": {
        "minItems": 1,
        "description": "The Expectations: a Case that expects nothing always passes, so at "
        "least one.",
    },
    "context": {"description": "Context keys the Host's assembler allows (not the Soul's)."},
    "tools": {"description": "Tools the Case declares (platform Tools go in platformTools)."},
    "platformTools": {"description": "Shipped platform Tools the Case uses, by name."},
    "toolResults": {"description": "Scripted Tool results, consumed in order."},
    "$schema": {
        "description": "For editors: the JSON Schema this file validates against (for "
        "instance ../schema/case.schema.json). Ignored by the loader and not in the corpusHash."
    },
    "trials": {
        "minimum": 1,
        "maximum": MAX_TRIALS_PER_CASE,
        "description": f"How many Trials a Sweep runs (1 to {MAX_TRIALS_PER_CASE}).",
    },
}
DEFINITIONS: dict[str, dict[str, Any]] = {
    "ToolDecl": {"properties": {"name": _NAMED}},
    "ScriptedCall": {"properties": {"callId": _NAMED, "name": _NAMED}},
    "ToolCallsStep": {"properties": {"calls": {"minItems": 1}}},
    "ScriptedResult": {
        "properties": {"denied": _NAMED, "error": _NAMED, "invalidArguments": _NAMED},
        "not": {
            "anyOf": [
                {"required": ["denied", "error"]},
                {"required": ["denied", "invalidArguments"]},
                {"required": ["error", "invalidArguments"]},
            ]
        },
    },
}


def case_schema(plugins: PluginSet) -> dict[str, Any]:
    schema: dict[str, Any] = copy.deepcopy(msgspec.json.schema(plugins.case_type))
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "Eval Case"
    defs: dict[str, Any] = schema["$defs"]
    case = defs["Case"]
    case["description"] = (
        "One frozen scenario: input, fixtures, Expectations and a script. The loader refuses "
        "more than this schema can say (see eval_cli/case_schema.py)."
    )
    for name, extra in GENERIC.items():
        merge(case["properties"][name], extra)
    for name, extra in DEFINITIONS.items():
        if name in defs:
            merge(defs[name], extra)
    by_tag = _kind_definitions(defs)
    for spec in plugins.kinds.values():
        definition = by_tag.get(spec.name)
        if definition is not None:
            merge(definition, _kind_extra(spec))
    for name, field in plugins.fields.items():
        prop = case["properties"].get(json_name(name))
        if prop is None:
            continue
        branches = [b for b in prop.get("anyOf", [prop]) if b.get("type") != "null"]
        if field.json_schema and branches:
            merge(branches[0], field.json_schema)
        merge(prop, _annotations(field.description, field.examples, field.tiers))
    conditions = list(_tier_conditions(plugins))
    if conditions:
        case.setdefault("allOf", []).extend(conditions)
    _dispatch_unions(schema)
    return schema


def _dispatch_unions(node: Any) -> None:
    """Each tagged union validated by its tag: ``if kind is X then X``, not ``anyOf`` every X.

    Against ``anyOf``, a mistake inside one Expectation reads "not valid under any of the given
    schemas" at the Expectation, and every branch's errors are built on the way; dispatched on
    the tag, a validator (and an editor) names the wrong field itself, at a fraction of the cost.
    The ``discriminator`` msgspec writes stays, for the editors that read it.
    """
    if isinstance(node, list):
        for item in node:
            _dispatch_unions(item)
        return
    if not isinstance(node, dict):
        return
    tagged = node.get("discriminator")
    if isinstance(tagged, dict) and "anyOf" in node and isinstance(tagged.get("mapping"), dict):
        tag, mapping = tagged["propertyName"], tagged["mapping"]
        tags = {ref: value for value, ref in mapping.items()}
        order = [tags[b["$ref"]] for b in node.pop("anyOf") if b.get("$ref") in tags]
        node.update(type="object", required=[tag], properties={tag: {"enum": sorted(mapping)}})
        node.setdefault("allOf", []).extend(
            {
                "if": {"required": [tag], "properties": {tag: {"const": value}}},
                "then": {"$ref": mapping[value]},
            }
            for value in order  # the union's own order, as the reference lists it
        )
    for value in node.values():
        _dispatch_unions(value)


def _kind_definitions(defs: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each kind's definition, found by its tag (class names may repeat across plug-ins)."""
    found: dict[str, dict[str, Any]] = {}
    for definition in defs.values():
        tag = definition.get("properties", {}).get("kind", {}).get("enum")
        if isinstance(tag, list) and len(tag) == 1:
            found[str(tag[0])] = definition
    return found


def _kind_extra(spec: KindSpec) -> dict[str, Any]:
    extra: dict[str, Any] = copy.deepcopy(dict(spec.json_schema or {}))
    grounding = spec.grounding
    description = spec.description
    if grounding is not None:
        field = json_name(grounding.field)
        if grounding.regex:
            merge(extra, {"properties": {field: {"format": "regex"}}})
        waiver = " (or give an `ungrounded` reason)" if grounding.waivable else ""
        note = f"`{field}` must be grounded in what the model was given{waiver}."
        description = f"{description} {note}".strip()
    merge(extra, _annotations(description, spec.examples, spec.tiers))
    return extra


def _annotations(
    description: str, examples: Iterable[Any], tiers: frozenset[str]
) -> dict[str, Any]:
    found: dict[str, Any] = {}
    only = "/".join(sorted(tiers))
    if tiers != ALL_TIERS:
        description = f"{description} ({only} only)".strip()
    if description:
        found["description"] = description
    listed = [dict(e) if isinstance(e, Mapping) else e for e in examples]
    if listed:
        found["examples"] = listed
    return found


def _tier_conditions(plugins: PluginSet) -> Iterable[dict[str, Any]]:
    """Per tier, the kinds and Case fields refused there, as ``if tier == T then not them``."""
    for tier in sorted(ALL_TIERS):
        kinds = sorted(k for k, spec in plugins.kinds.items() if tier not in spec.tiers)
        fields = sorted(
            json_name(f) for f, spec in plugins.fields.items() if tier not in spec.tiers
        )
        then: dict[str, Any] = {}
        if kinds:
            then["properties"] = {
                "expect": {"items": {"properties": {"kind": {"not": {"enum": kinds}}}}}
            }
        for name in fields:
            then.setdefault("properties", {})[name] = {
                "type": "null",
                "description": f"{name} is not allowed in an {tier} Case",
            }
        if then:
            yield {
                "if": {"properties": {"tier": {"const": tier}}, "required": ["tier"]},
                "then": then,
            }


def merge(target: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge ``extra`` into ``target``: objects merge, ``required`` lists join, anything
    else is replaced."""
    for key, value in extra.items():
        current = target.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            merge(current, value)
        elif key == "required" and isinstance(current, list) and isinstance(value, list):
            target[key] = current + [v for v in value if v not in current]
        else:
            target[key] = copy.deepcopy(value)
    return target


def render(plugins: PluginSet) -> bytes:
    encoded = msgspec.json.encode(case_schema(plugins), order="sorted")
    return msgspec.json.format(encoded, indent=2) + b"\n"
