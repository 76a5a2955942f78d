"""Routine definitions: their format, the static lint, and how their templates resolve
(the original's two forms are read by :mod:`agent_runtime.routines.forms`).

A Routine is a short list of States run in order with no model: one ``tool`` State that calls
a Tool with arguments built from the Routine's inputs, and optionally a ``capture`` State whose
output is built from the Tool State's output. A value ``{"$from": "inputs.<name>..."}`` or
``{"$from": "states.<key>.output..."}`` anywhere in a template is replaced by what it names::

    inputs: {invoiceId: {type: string}}
    states:
      - {key: push, type: tool, tool: invoice_push,
         arguments: {invoiceId: {$from: inputs.invoiceId}}}
      - {key: receipt, type: capture, output: {receiptId: {$from: states.push.output.id}}}

The lint is what the Soul's doctor sweeps with and what a Routine Run checks before it starts:
a finding names the path and the problem, and a Routine with findings never runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import msgspec

from agent_runtime.routines import forms as routine_forms

StateType = Literal["tool", "capture"]
FROM = "$from"
_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,63}\Z")
_TOP = frozenset({"description", "inputs", "states"})
_STATE_FIELDS: Mapping[str, frozenset[str]] = {
    "tool": frozenset({"key", "type", "tool", "arguments"}),
    "capture": frozenset({"key", "type", "output"}),
}


class Finding(msgspec.Struct, frozen=True):
    """One problem of a Routine definition: where (a dot path) and what."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


class RoutineState(msgspec.Struct, frozen=True):
    key: str
    type: StateType
    tool: str | None = None
    arguments: Any = None
    output: Any = None


class Routine(msgspec.Struct, frozen=True):
    """A definition that passed the lint."""

    description: str
    inputs: Mapping[str, Any]
    states: tuple[RoutineState, ...]
    form: routine_forms.Form = "runtime"

    @property
    def runnable(self) -> bool:
        """The original's forms this runner cannot run (agent operations, branches, actions)
        are linted and published, never started: they have no States here."""
        return bool(self.states)


class RoutineError(ValueError):
    """A definition with findings: it is never run."""

    def __init__(self, findings: list[Finding]) -> None:
        super().__init__("; ".join(map(str, findings)))
        self.findings = findings


def lint(data: Any) -> list[Finding]:
    """Every finding of a definition in any form (empty when it is sound)."""
    form = routine_forms.form_of(data)
    if form == "workflow":
        return [Finding(path, problem) for path, problem in routine_forms.lint_workflow(data)]
    if form == "canonical":
        envelope = routine_forms.canonical_findings(data)
        if envelope or not routine_forms.runnable(data):
            return [Finding(path, problem) for path, problem in envelope]
        translated = _lint_runtime(routine_forms.from_canonical(data))
        return [Finding(f.path.replace("$.", "$.spec.", 1), f.problem) for f in translated]
    return _lint_runtime(data)


def _lint_runtime(data: Any) -> list[Finding]:
    if not isinstance(data, Mapping):
        return [Finding("$", "a Routine definition is a mapping with inputs and states")]
    findings = [Finding(f"$.{k}", "unknown field") for k in sorted(map(str, set(data) - _TOP))]
    inputs = data.get("inputs", {})
    if not isinstance(inputs, Mapping) or not all(isinstance(v, Mapping) for v in inputs.values()):
        findings.append(Finding("$.inputs", "must map each input's name to its JSON Schema"))
        inputs = {}
    states = data.get("states")
    if not isinstance(states, list) or not states:
        return [*findings, Finding("$.states", "must list at least one State")]
    seen: dict[str, str] = {}
    tools = 0
    for index, state in enumerate(states):
        where = f"$.states[{index}]"
        if not isinstance(state, Mapping):
            findings.append(Finding(where, "a State is a mapping with key and type"))
            continue
        raw, key = state.get("type"), state.get("key")
        kind = raw if isinstance(raw, str) else ""
        if kind not in _STATE_FIELDS:
            findings.append(
                Finding(f"{where}.type", f"{raw!r} is not a State type (tool, capture)")
            )
            continue
        if not isinstance(key, str) or not _KEY.match(key):
            findings.append(Finding(f"{where}.key", f"{key!r} is not a lowercase State key"))
        elif key in seen:
            findings.append(Finding(f"{where}.key", f"State key {key!r} is used twice"))
        extra = sorted(map(str, set(state) - _STATE_FIELDS[kind]))
        findings.extend(
            Finding(f"{where}.{name}", f"unknown field of a {kind} State") for name in extra
        )
        if kind == "tool":
            tools += 1
        findings.extend(_state_body(state, kind, where, inputs, seen))
        if isinstance(key, str):
            seen.setdefault(key, kind)
    if tools != 1:
        findings.append(Finding("$.states", f"a Routine has exactly one tool State, not {tools}"))
    return findings


def _state_body(
    state: Mapping[str, Any], kind: str, where: str, inputs: Mapping[str, Any], seen: dict[str, str]
) -> list[Finding]:
    """A tool State names its Tool and refers to inputs only; a capture State says what it
    keeps and may also refer to the States before it."""
    findings: list[Finding] = []
    if kind == "tool":
        if not isinstance(state.get("tool"), str) or not state["tool"]:
            findings.append(Finding(f"{where}.tool", "names the Tool the State calls"))
        findings.extend(_references(state.get("arguments"), f"{where}.arguments", inputs, {}))
        return findings
    if "output" not in state:
        findings.append(Finding(f"{where}.output", "a capture State says what it keeps"))
    findings.extend(_references(state.get("output"), f"{where}.output", inputs, seen))
    return findings


def _references(
    template: Any, where: str, inputs: Mapping[str, Any], earlier: Mapping[str, str]
) -> Iterator[Finding]:
    for path, source in _sources(template, where):
        root, _, rest = source.partition(".")
        if root == "inputs":
            name = rest.split(".", 1)[0]
            if name not in inputs:
                yield Finding(path, f"reads the undeclared input {name!r}")
        elif root == "states":
            key, _, tail = rest.partition(".")
            if earlier.get(key) != "tool":
                yield Finding(path, f"reads State {key!r}, which is not an earlier tool State")
            elif tail.split(".", 1)[0] != "output":
                yield Finding(path, f"reads states.{key}.{tail}; a State gives only its output")
        else:
            yield Finding(path, f"{source!r} reads neither inputs nor states")


def _sources(template: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(template, Mapping):
        if set(template) == {FROM}:
            source = template[FROM]
            yield where, source if isinstance(source, str) else repr(source)
            return
        for key, value in template.items():
            yield from _sources(value, f"{where}.{key}")
    elif isinstance(template, list):
        for index, value in enumerate(template):
            yield from _sources(value, f"{where}[{index}]")


def parse(data: Any) -> Routine:
    """The definition as a :class:`Routine`; :class:`RoutineError` when the lint finds any."""
    findings = lint(data)
    if findings:
        raise RoutineError(findings)
    form = routine_forms.form_of(data)
    if form == "workflow" or (form == "canonical" and not routine_forms.runnable(data)):
        about = data.get("spec") if form == "canonical" else data
        title = about.get("description") or data.get("name") or ""
        return Routine(str(title), {}, (), form)
    if form == "canonical":
        data = routine_forms.from_canonical(data)
    states = tuple(
        RoutineState(
            key=s["key"],
            type=s["type"],
            tool=s.get("tool"),
            arguments=s.get("arguments"),
            output=s.get("output"),
        )
        for s in data["states"]
    )
    inputs = dict(data.get("inputs") or {})
    return Routine(str(data.get("description") or ""), inputs, states, form)


def resolve(template: Any, scope: Mapping[str, Any]) -> Any:
    """The template with every ``$from`` replaced by what it names in ``scope`` (``None`` when
    the value is not there: a missing key reads as null, never as the template)."""
    if isinstance(template, Mapping):
        if set(template) == {FROM}:
            value: Any = scope
            for part in str(template[FROM]).split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
            return value
        return {key: resolve(value, scope) for key, value in template.items()}
    if isinstance(template, list):
        return [resolve(value, scope) for value in template]
    return template
