"""The original's canonical envelopes in a ``routine`` block, read as this block's own form.

A Case written for the original gives its Routine, its Tool's contract and its guardrail as
``tulipfarm.ai/v1`` documents (``{apiVersion, kind, metadata, spec}``). Each is translated here
to the block's own spelling, so one set of load rules and one runner serve both:

- ``Routine``: a ``tool`` State (``toolRef.name``, ``input``) and ``compute`` States (their
  ``input.output``, else their whole ``input``, kept as a ``capture`` State); ``${ input.x }`` and
  ``${ states.Name.output.y }`` are the block's ``$from`` references;
- ``ToolContract``: ``spec.toolId`` is the Tool's name, ``spec.inputSchema`` and
  ``spec.mutating`` are kept; the Tool requires an approval when the contract says so or a
  ``Guardrail`` ``approval`` rule covers its ``action``;
- ``Guardrail``: its ``allow`` and ``approval`` rules are what the runtime's policy already does
  for an allowed action (no extra guard); under ``defaultDecision: deny`` an action no ``allow``
  rule names is refused, as a ``tool_blocklist`` of the Tool, before its provider is reached.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

API_VERSION = "tulipfarm.ai/v1"
_EXPRESSION = r"^\$\{\s*(input|states)((?:\.[A-Za-z0-9_-]+)*)\s*\}\Z"  # compiled at first use


class CanonicalError(ValueError):
    """An envelope the block's form cannot carry: ``path`` (JSON path) and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def is_canonical(data: Any, kind: str) -> bool:
    """Whether ``data`` is a canonical envelope of ``kind``."""
    return isinstance(data, Mapping) and "apiVersion" in data and data.get("kind") == kind


def _spec(data: Mapping[str, Any], where: str, kind: str) -> Mapping[str, Any]:
    if data.get("apiVersion") != API_VERSION:
        raise CanonicalError(f"{where}.apiVersion", f"must be {API_VERSION!r}")
    if data.get("kind") != kind:
        raise CanonicalError(f"{where}.kind", f"must be {kind!r}")
    spec = data.get("spec")
    if not isinstance(spec, Mapping):
        raise CanonicalError(f"{where}.spec", f"a {kind} envelope carries its spec")
    return spec


def _reference(value: Any, keys: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        match = re.match(_EXPRESSION, value)
        if match is None:
            return value
        root, rest = match.group(1), match.group(2).lstrip(".")
        if root == "input":
            return {"$from": f"inputs.{rest}" if rest else "inputs"}
        name, _, tail = rest.partition(".")
        return {"$from": ".".join(p for p in ("states", keys.get(name, name), tail) if p)}
    if isinstance(value, Mapping):
        return {k: _reference(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [_reference(v, keys) for v in value]
    return value


def _inputs(template: Any, found: dict[str, dict[str, Any]]) -> None:
    if isinstance(template, Mapping):
        source = template.get("$from")
        if set(template) == {"$from"} and isinstance(source, str):
            if source.startswith("inputs."):
                found.setdefault(source.split(".")[1], {})
            return
        for value in template.values():
            _inputs(value, found)
    elif isinstance(template, list):
        for value in template:
            _inputs(value, found)


def _ordered(spec: Mapping[str, Any], where: str) -> list[Mapping[str, Any]]:
    """The States in the order the flow runs them, from ``start`` along ``transition``."""
    states = spec.get("states")
    if not isinstance(states, list) or not all(isinstance(s, Mapping) for s in states):
        raise CanonicalError(f"{where}.spec.states", "must list the Routine's States")
    by_name = {str(s.get("name")): s for s in states}
    order: list[Mapping[str, Any]] = []
    name = spec.get("start")
    while name is not None and len(order) <= len(states):
        state = by_name.get(str(name))
        if state is None:
            raise CanonicalError(f"{where}.spec", f"the flow names no State {name!r}")
        order.append(state)
        name = None if state.get("end") else state.get("transition")
    if len(order) != len(states):
        raise CanonicalError(f"{where}.spec", "every State runs once, from start to an end")
    return order


def routine(data: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The block's form of a canonical Routine: ``{slug, description, inputs, states}``."""
    spec = _spec(data, where, "Routine")
    metadata = data.get("metadata")
    slug = metadata.get("slug") if isinstance(metadata, Mapping) else None
    if not isinstance(slug, str):
        raise CanonicalError(f"{where}.metadata.slug", "names the Routine")
    order = _ordered(spec, where)
    at = {id(state): index for index, state in enumerate(spec["states"])}
    keys = {str(s["name"]): str(s["name"]).lower() for s in order}
    states: list[dict[str, Any]] = []
    for state in order:
        template = _reference(state.get("input", {}), keys)
        key = keys[str(state["name"])]
        if state.get("type") == "tool":
            ref = state.get("toolRef")
            tool = ref.get("name") if isinstance(ref, Mapping) else None
            states.append({"key": key, "type": "tool", "tool": tool, "arguments": template})
        elif state.get("type") == "compute":
            kept = template.get("output", template) if isinstance(template, Mapping) else template
            states.append({"key": key, "type": "capture", "output": kept})
        else:
            raise CanonicalError(
                f"{where}.spec.states[{at[id(state)]}].type",
                f"{state.get('type')!r}: a Routine run here has tool and compute States only",
            )
    inputs: dict[str, dict[str, Any]] = {}
    for state in states:
        _inputs(state.get("arguments") or state.get("output"), inputs)
    description = str(spec.get("description") or slug)
    return {"slug": slug, "description": description, "inputs": inputs, "states": states}


def approval_actions(guardrail: Any) -> frozenset[str]:
    """The actions a canonical Guardrail's ``approval`` rules cover."""
    if not is_canonical(guardrail, "Guardrail"):
        return frozenset()
    rules = guardrail["spec"].get("rules") if isinstance(guardrail.get("spec"), Mapping) else None
    return frozenset(
        str(action)
        for rule in rules or ()
        if isinstance(rule, Mapping) and rule.get("type") == "approval"
        for action in rule.get("actions") or ()
    )


def tool_contract(data: Mapping[str, Any], guardrail: Any, where: str) -> dict[str, Any]:
    """The block's form of a canonical ToolContract: ``{name, inputSchema, mutating, ...}``."""
    spec = _spec(data, where, "ToolContract")
    name, schema = spec.get("toolId"), spec.get("inputSchema")
    if not isinstance(name, str) or not name:
        raise CanonicalError(f"{where}.spec.toolId", "names the Tool")
    if not isinstance(schema, Mapping):
        raise CanonicalError(f"{where}.spec.inputSchema", "is the Tool's input schema")
    approval = bool(spec.get("requiresApproval")) or spec.get("action") in approval_actions(
        guardrail
    )
    return {
        "name": name,
        "inputSchema": dict(schema),
        "description": str(spec.get("description") or spec.get("action") or name),
        "mutating": bool(spec.get("mutating")),
        "requiresApproval": approval,
    }


def guardrail(data: Mapping[str, Any], tool: str, action: Any, where: str) -> dict[str, Any] | None:
    """The runtime policy a canonical Guardrail adds for the Routine's one Tool (None: none)."""
    spec = _spec(data, where, "Guardrail")
    decision = spec.get("defaultDecision", "allow")
    if decision not in ("allow", "deny"):
        raise CanonicalError(f"{where}.spec.defaultDecision", "must be 'allow' or 'deny'")
    rules = [r for r in spec.get("rules") or () if isinstance(r, Mapping)]
    allowed = any(r.get("type") == "allow" and action in (r.get("actions") or ()) for r in rules)
    denied = any(r.get("type") == "deny" and action in (r.get("actions") or ()) for r in rules)
    if denied or (decision == "deny" and not allowed):
        return {"tool-call": [{"guard": "tool_blocklist", "block": [tool]}]}
    return None
