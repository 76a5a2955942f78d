"""A kind's or Case field's documented example is one the loader accepts.

The kind reference (:mod:`eval_cli.reference`, the docs and ``eval plugins --kind``) shows each
kind's and Case field's first example; an example the loader would refuse teaches a refusal. So
each example is put in a minimal Case of every tier it may appear at and checked by the loader
itself (``eval_core.commands.case_document_problems``): for a kind, its tier, its own check and
its grounding rule (the minimal Case's input gives the example's grounded text, as a real
Case's must; a grounded pattern is not asked, as no text can be given for a pattern in
general), for a Case field its tier and its text functions. Not asked: what needs a Host (the
agent, the Tools, the context keys, the services) and the cross-field rules of
``eval_check_case`` (a kind that needs a companion field says so in its description).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

import msgspec

from eval_core.commands import PluginSet, case_document_problems, grounded_text
from eval_core.kinds import CaseField, KindSpec, json_name

EXAMPLE_ID = "example"
CASE_EXAMPLE: dict[str, Any] = {
    "id": "refund-looks-up-the-order",
    "tier": "l2",
    "agent": "support",
    "input": [{"role": "user", "content": "Please refund order A-1001."}],
    "tools": [
        {
            "name": "lookup_order",
            "description": "Look an order up by its id.",
            "inputSchema": {"type": "object", "properties": {"orderId": {"type": "string"}}},
        }
    ],
    "toolResults": [{"name": "lookup_order", "output": {"status": "delivered"}}],
    "script": [
        {
            "kind": "tool_calls",
            "calls": [{"callId": "c1", "name": "lookup_order", "arguments": {"orderId": "A-1001"}}],
        },
        {"kind": "text", "text": "Order A-1001 was delivered; I have asked for its refund."},
    ],
    "expect": [
        {"kind": "tool_called", "name": "lookup_order"},
        {
            "kind": "tool_argument_equals",
            "name": "lookup_order",
            "path": "orderId",
            "value": "A-1001",
        },
    ],
}
"""The reference's whole Case, the generic fields in use; checked whenever its kinds are
installed (they are the core families')."""
INPUT = "An example request."


def minimal_case(tier: str, expect: list[Any], given: str = INPUT, **fields: Any) -> dict[str, Any]:
    """The smallest Case document around an example: one message, one scripted answer."""
    return {
        "id": EXAMPLE_ID,
        "tier": tier,
        "agent": "example",
        "input": [{"role": "user", "content": given}],
        "script": [{"kind": "text", "text": "Done."}],
        "expect": expect,
        **fields,
    }


def kind_example_problems(plugins: PluginSet, spec: KindSpec, example: Any) -> list[str]:
    """Why the loader would refuse ``example`` of kind ``spec`` (nothing when it loads)."""
    if not isinstance(example, Mapping):
        return [f"the example is {type(example).__name__}, not an object"]
    if example.get("kind") != spec.name:
        return [f"the example's kind is {example.get('kind')!r}, not {spec.name!r}"]
    try:
        decoded = msgspec.convert(dict(example), spec.struct, str_keys=True)
    except msgspec.ValidationError as exc:
        return [f"the example does not decode: {exc}"]
    text = grounded_text(spec, decoded)
    kinds: Mapping[str, KindSpec] = plugins.kinds
    if spec.grounding is not None and spec.grounding.regex:  # no text to give a pattern
        kinds = {**kinds, spec.name: msgspec.structs.replace(spec, grounding=None)}
    given = INPUT if text is None else f"{INPUT} {text}"
    found: list[str] = []
    for tier in sorted(spec.tiers):
        document = minimal_case(tier, [dict(example)], given)
        found.extend(case_document_problems(plugins, document, kinds))
    return found


def field_example_problems(plugins: PluginSet, field: CaseField, example: Any) -> list[str]:
    """Why the loader would refuse ``example`` as the value of Case field ``field``."""
    found: list[str] = []
    for tier in sorted(field.tiers):
        document = minimal_case(tier, [], **{json_name(field.name): example})
        found.extend(case_document_problems(plugins, document, expects=False))
    return found


def missing(plugins: PluginSet) -> list[str]:
    """Every installed kind and Case field without reference material: no description, no
    example, or an example the loader refuses; one line each, naming the owner."""
    found: list[str] = []
    if {e["kind"] for e in CASE_EXAMPLE["expect"]} <= set(plugins.kinds):
        said = case_document_problems(plugins, CASE_EXAMPLE)
        found.extend(f"the reference's whole Case: {reason}" for reason in said)
    for name, spec in plugins.kinds.items():
        owner = plugins.kind_owner[name]
        what = f"kind {name!r} of {owner.distribution} {owner.version}"
        found.extend(_lacking(what, spec, partial(kind_example_problems, plugins, spec)))
    for name, field in plugins.fields.items():
        owner = plugins.field_owner[name]
        what = f"Case field {json_name(name)!r} of {owner.distribution} {owner.version}"
        found.extend(_lacking(what, field, partial(field_example_problems, plugins, field)))
    return found


def _lacking(
    what: str, declared: KindSpec | CaseField, refused: Callable[[Any], list[str]]
) -> Iterator[str]:
    """What the kind or Case field ``what`` lacks: a description, an example, or an example
    the loader takes (``refused`` says why it would not)."""
    if not declared.description.strip():
        yield f"{what}: no description (KindSpec/CaseField description=...)"
    if not declared.examples:
        yield f"{what}: no example (KindSpec/CaseField examples=[...])"
    for index, example in enumerate(declared.examples):
        yield from (f"{what}: example {index + 1}: {reason}" for reason in refused(example))
