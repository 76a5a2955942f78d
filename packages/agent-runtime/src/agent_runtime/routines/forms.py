"""The original's two Routine forms, read beside this runtime's own.

A Soul or a Case written for the original spells a Routine one of two ways, and both load here:

- the **canonical envelope** ``{apiVersion: <platform name>.ai/v1, kind: Routine, metadata {slug..},
  spec {start, states [{type: tool | compute, name, toolRef {name}, input, transition | end}]}}``,
  whose ``${ input.x }`` / ``${ states.Name.output }`` expressions are the same references as this
  runtime's ``$from`` templates: it is translated to the runtime's form, so it runs;
- the **workflow form** ``{id, version, start, functions [{name, operation}], states [{name,
  type: operation, actions [{functionRef {refName, arguments}}], end | transition}],
  x-triggers}``: its operation States call agents (``operation: agent:<slug>``), which this
  runtime's Routine runner (a Tool State, no model) does not run, so it is linted and published
  but never started.

Why translate rather than keep a third runner: one runner, one lint, one set of findings, and a
definition from the original means exactly what the runtime's own spelling of it means.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from agent_runtime.platform_name import PLATFORM_NAME

Form = Literal["runtime", "canonical", "workflow"]
API_VERSION = f"{PLATFORM_NAME}.ai/v1"
_EXPRESSION = re.compile(r"^\$\{\s*(input|states)((?:\.[A-Za-z0-9_-]+)*)\s*\}\Z")
_WORKFLOW_TOP = frozenset(
    {"id", "version", "name", "description", "start", "functions", "states", "specVersion"}
)
_WORKFLOW_STATE = frozenset({"name", "type", "actions", "end", "transition"})
_CANONICAL_TYPES = frozenset({"tool", "compute", "branch", "action", "script", "wait"})
_RUNNABLE_TYPES = frozenset({"tool", "compute"})


def form_of(data: Any) -> Form:
    """Which spelling a definition uses (anything not the original's is the runtime's)."""
    if isinstance(data, Mapping):
        if data.get("kind") == "Routine" and "spec" in data:
            return "canonical"
        if "functions" in data or (data.get("start") is not None and "states" in data):
            return "workflow"
    return "runtime"


def _names(states: list[Any]) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, state in enumerate(states):
        if isinstance(state, Mapping) and isinstance(state.get("name"), str):
            found.setdefault(state["name"], index)
    return found


def _flow(states: list[Any], start: Any, where: str) -> Iterator[tuple[str, str]]:
    """``start`` and every ``transition`` name a State; every State ends or moves on."""
    names = _names(states)
    if not isinstance(start, str) or start not in names:
        yield f"{where}.start", f"{start!r} names no State"
    for index, state in enumerate(states):
        if not isinstance(state, Mapping):
            continue
        path = f"{where}.states[{index}]"
        if names.get(str(state.get("name")), index) != index:
            yield f"{path}.name", f"State name {state.get('name')!r} is used twice"
        conditions = state.get("conditions") if state.get("type") == "branch" else None
        exits = conditions if isinstance(conditions, list) and conditions else [state]
        for number, exit_ in enumerate(exits):
            at = path if exit_ is state else f"{path}.conditions[{number}]"
            target = exit_.get("transition") if isinstance(exit_, Mapping) else None
            if target is not None and target not in names:
                yield f"{at}.transition", f"{target!r} names no State"
            elif target is None and not (isinstance(exit_, Mapping) and exit_.get("end") is True):
                yield at, "a State either ends (end: true) or names its transition"


def lint_workflow(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Findings (path, problem) of a workflow-form definition."""
    found = [
        (f"$.{k}", "unknown field")
        for k in sorted(map(str, data))
        if k not in _WORKFLOW_TOP and not k.startswith("x-")
    ]
    functions = data.get("functions", [])
    declared: set[str] = set()
    if not isinstance(functions, list):
        found.append(("$.functions", "must list {name, operation} entries"))
        functions = []
    for index, fn in enumerate(functions):
        if not isinstance(fn, Mapping) or not all(
            isinstance(fn.get(k), str) and fn.get(k) for k in ("name", "operation")
        ):
            found.append((f"$.functions[{index}]", "a function has a name and an operation"))
            continue
        declared.add(fn["name"])
    states = data.get("states")
    if not isinstance(states, list) or not states:
        return [*found, ("$.states", "must list at least one State")]
    for index, state in enumerate(states):
        path = f"$.states[{index}]"
        if not isinstance(state, Mapping) or not isinstance(state.get("name"), str):
            found.append((path, "a State is a mapping with a name and a type"))
            continue
        found.extend((f"{path}.{k}", "unknown field") for k in sorted(set(state) - _WORKFLOW_STATE))
        if state.get("type") != "operation":
            found.append((f"{path}.type", f"{state.get('type')!r} is not a State type (operation)"))
            continue
        actions = state.get("actions")
        if not isinstance(actions, list) or not actions:
            found.append((f"{path}.actions", "an operation State lists its actions"))
            continue
        for number, action in enumerate(actions):
            ref = action.get("functionRef") if isinstance(action, Mapping) else None
            name = ref.get("refName") if isinstance(ref, Mapping) else None
            if name not in declared:
                found.append(
                    (f"{path}.actions[{number}].functionRef", f"{name!r} names no function")
                )
    found.extend(_flow(states, data.get("start"), "$"))
    return found


def _template(value: Any, keys: Mapping[str, str]) -> Any:
    """An input template with each ``${ ... }`` reference as the runtime's ``$from``."""
    if isinstance(value, str):
        match = _EXPRESSION.match(value)
        if match is None:
            return value
        root, rest = match.group(1), match.group(2).lstrip(".")
        if root == "input":
            return {"$from": f"inputs.{rest}" if rest else "inputs"}
        name, _, tail = rest.partition(".")
        return {"$from": ".".join(p for p in ("states", keys.get(name, name), tail) if p)}
    if isinstance(value, Mapping):
        return {k: _template(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [_template(v, keys) for v in value]
    return value


def _referenced_inputs(template: Any) -> Iterator[str]:
    if isinstance(template, Mapping):
        source = template.get("$from")
        if set(template) == {"$from"} and isinstance(source, str):
            if source.startswith("inputs."):
                yield source.split(".")[1]
            return
        for value in template.values():
            yield from _referenced_inputs(value)
    elif isinstance(template, list):
        for value in template:
            yield from _referenced_inputs(value)


def canonical_findings(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The envelope's own findings (what the translation cannot carry)."""
    found: list[tuple[str, str]] = []
    if data.get("apiVersion") != API_VERSION:
        found.append(("$.apiVersion", f"must be {API_VERSION!r}"))
    spec = data.get("spec")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("states"), list):
        return [*found, ("$.spec.states", "must list the Routine's States")]
    states = spec["states"]
    for index, state in enumerate(states):
        path = f"$.spec.states[{index}]"
        if not isinstance(state, Mapping) or not isinstance(state.get("name"), str):
            found.append((path, "a State is a mapping with a name and a type"))
            continue
        if state.get("type") not in _CANONICAL_TYPES:
            known = ", ".join(sorted(_CANONICAL_TYPES))
            found.append((f"{path}.type", f"{state.get('type')!r} is not a State type ({known})"))
        elif state["type"] == "tool" and not (
            isinstance(state.get("toolRef"), Mapping) and state["toolRef"].get("name")
        ):
            found.append((f"{path}.toolRef.name", "names the Tool the State calls"))
    found.extend(_flow(states, spec.get("start"), "$.spec"))
    found.extend(_output_reads(states))
    return found


def _expressions(value: Any, where: str) -> Iterator[tuple[str, str, str]]:
    """Each ``${ states.Name.output.field... }`` in a template: (path, State name, field)."""
    if isinstance(value, str):
        match = _EXPRESSION.match(value)
        if match is not None and match.group(1) == "states":
            parts = match.group(2).lstrip(".").split(".")
            if len(parts) >= 3 and parts[1] == "output":
                yield where, parts[0], parts[2]
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _expressions(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _expressions(item, f"{where}[{index}]")


def _output_reads(states: list[Any]) -> Iterator[tuple[str, str]]:
    """A read of a field that the State's declared ``output`` schema closes out (no such
    property, ``additionalProperties: false``): it can only ever read nothing."""
    schemas = {
        s["name"]: s["output"]
        for s in states
        if isinstance(s, Mapping) and isinstance(s.get("output"), Mapping)
    }
    for index, state in enumerate(states):
        if not isinstance(state, Mapping):
            continue
        reads = _expressions(state.get("input"), f"$.spec.states[{index}].input")
        for path, name, field in reads:
            schema = schemas.get(name)
            if schema is None or schema.get("additionalProperties") is not False:
                continue
            declared = schema.get("properties")
            known = sorted(declared) if isinstance(declared, Mapping) else []
            if field not in known:
                yield (
                    path,
                    f"reads {field!r} of State {name!r}, whose output schema declares "
                    f"only {', '.join(map(repr, known)) or 'nothing'}",
                )


def runnable(data: Mapping[str, Any]) -> bool:
    """Whether this runtime's runner can run a canonical definition: one ``tool`` State and
    ``compute`` States only (``branch``, ``action``, ``script`` and ``wait`` are linted for
    their flow and published, never started)."""
    states = data["spec"]["states"]
    kinds = [s.get("type") for s in states]
    return set(kinds) <= _RUNNABLE_TYPES and kinds.count("tool") == 1


def from_canonical(data: Mapping[str, Any]) -> dict[str, Any]:
    """The runtime's form of a canonical definition whose envelope has no findings: a ``tool``
    State calls ``toolRef.name`` with ``input``; a ``compute`` State keeps its ``input.output``
    (its whole ``input`` when that names no ``output``) as a capture State."""
    spec = data["spec"]
    keys = {s["name"]: s["name"].lower() for s in spec["states"]}
    states: list[dict[str, Any]] = []
    for state in spec["states"]:
        template = _template(state.get("input", {}), keys)
        if state["type"] == "tool":
            states.append(
                {"key": keys[state["name"]], "type": "tool", "tool": state["toolRef"]["name"]}
                | {"arguments": template}
            )
        else:
            kept = template.get("output", template) if isinstance(template, Mapping) else template
            states.append({"key": keys[state["name"]], "type": "capture", "output": kept})
    inputs: dict[str, Any] = {name: {} for s in states for name in _referenced_inputs(s)}
    metadata = data.get("metadata")
    title = metadata.get("slug") if isinstance(metadata, Mapping) else None
    return {"description": str(spec.get("description") or title or ""), "inputs": inputs} | {
        "states": states
    }
