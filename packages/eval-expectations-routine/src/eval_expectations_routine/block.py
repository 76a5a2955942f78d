"""The ``routine`` Case field and its load rules.

``routine`` describes one Routine the operator runs instead of a chat Turn: its definition (one
``tool`` State, optionally a ``capture`` State), the contract of the Tool it calls, an extra
guardrail policy (each in this block's form or as the original's canonical envelope, see
:mod:`eval_expectations_routine.canonical`), its inputs, what the Tool's provider answers call
after call (``providerSteps``), whether the approver approves, and where the worker crashes.
The rules refuse a block that could not mean one thing, with file, path and reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import msgspec

from eval_core.kinds import BLOCK, CaseBase, json_name
from eval_expectations_routine import canonical

FIELD = "routine"
TOOL_PROVIDER = "tool_provider"
MAX_PADDING = 262_144
_SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"  # compiled (and kept by re) at first use
_FROM = "$from"


class RoutineState(msgspec.Struct, **BLOCK):
    """One State: a ``tool`` State calls ``tool`` with ``arguments``; a ``capture`` State keeps
    ``output``. Values ``{"$from": "inputs.x"}`` / ``{"$from": "states.<key>.output.y"}``
    are read when the State runs."""

    key: str
    type: Literal["tool", "capture"]
    tool: str | None = None
    arguments: Any = None
    output: Any = None


class RoutineDefinition(msgspec.Struct, **BLOCK):
    slug: str
    states: list[RoutineState]
    inputs: dict[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    description: str | None = None

    def runtime_form(self) -> dict[str, Any]:
        """The definition as the runtime's format spells it (the slug is its name, apart)."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        data.pop("slug")
        return data


class ToolContract(msgspec.Struct, **BLOCK):
    name: str
    input_schema: dict[str, Any]
    description: str | None = None
    mutating: bool = False
    requires_approval: bool = False


class SuccessStep(msgspec.Struct, tag="success", tag_field="kind", **BLOCK):
    """The provider applies the effect and answers ``output`` (after ``paddingBytes`` bytes of
    leading whitespace: a large reply that must be read whole)."""

    output: Any
    padding_bytes: int | None = None


class RetryStep(msgspec.Struct, tag="retry", tag_field="kind", **BLOCK):
    """The provider asks to be retried after ``retryAfterMs``, with ``code``: HTTP ``status``
    429 (rate limited) or 503 (busy), the wait said in the ``Retry-After`` header (whole
    seconds, rounded up), in the body's ``error.retryAfterMs``, or both (``retryAfterIn``)."""

    retry_after_ms: int
    code: str | None = None
    status: Literal[429, 503] = 429
    retry_after_in: Literal["header", "body", "both"] = "both"


class RefuseStep(msgspec.Struct, tag="refuse", tag_field="kind", **BLOCK):
    """The provider refuses the call for good: HTTP ``status`` (a 4xx) with ``{"error":
    {"code"}}``. Nothing is applied and no retry is asked for, so the call fails with ``code``.
    With ``body`` instead of ``code``, that text is the whole answer (a firewall's HTML page in
    front of the provider): no JSON, so the call fails as a malformed reply."""

    status: Literal[400, 403, 404, 409, 422]
    code: str | None = None
    body: str | None = None


ProviderStep = SuccessStep | RetryStep | RefuseStep
CrashAfter = Literal["effect_confirmed", "state_succeeded"]


class Resolved(msgspec.Struct, frozen=True):
    """A block's definition, contract and guardrail, each in this block's own form."""

    definition: RoutineDefinition
    tool_contract: ToolContract
    guardrail: dict[str, Any] | None


class RoutineBlock(msgspec.Struct, **BLOCK):
    """The ``routine`` block of a Case. ``approval``: ``approved`` (the approver grants what
    the Routine asks), ``undecided`` (nobody decides, but the operator re-queues the waiting Run
    once: its gate must hold), or nobody decides and nothing moves. ``definition``,
    ``toolContract`` and ``guardrail`` are read by :meth:`resolved` (either form)."""

    definition: dict[str, Any]
    tool_contract: dict[str, Any]
    provider_steps: list[ProviderStep]
    guardrail: dict[str, Any] | None = None
    inputs: dict[str, Any] = msgspec.field(default_factory=dict)
    approval: Literal["approved", "undecided"] | None = None
    crash_after: CrashAfter | None = None

    def resolved(self) -> Resolved:
        """The three documents in this block's form; :class:`canonical.CanonicalError` names
        the JSON path of what neither form can carry."""
        where = "$.routine"
        definition, contract, guard = self.definition, self.tool_contract, self.guardrail
        if canonical.is_canonical(definition, "Routine"):
            definition = canonical.routine(definition, f"{where}.definition")
        if canonical.is_canonical(contract, "ToolContract"):
            action = contract.get("spec", {}).get("action")
            contract = canonical.tool_contract(contract, guard, f"{where}.toolContract")
            if guard is not None and canonical.is_canonical(guard, "Guardrail"):
                guard = canonical.guardrail(guard, contract["name"], action, f"{where}.guardrail")
        elif canonical.is_canonical(guard, "Guardrail"):
            raise canonical.CanonicalError(
                f"{where}.guardrail", "a canonical Guardrail goes with a canonical ToolContract"
            )
        return Resolved(
            _convert(definition, RoutineDefinition, f"{where}.definition"),
            _convert(contract, ToolContract, f"{where}.toolContract"),
            guard,
        )


def _convert(data: Any, kind: type[Any], where: str) -> Any:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as error:
        text = str(error)
        at = text.rpartition(" - at `$")
        if at[1]:
            raise canonical.CanonicalError(where + at[2].rstrip("`"), at[0]) from None
        raise canonical.CanonicalError(where, text) from None


class ToolProvider(msgspec.Struct, **BLOCK):
    """The ``toolProvider`` block of a chat Case: the loopback provider serves ``tool`` (a Tool
    the Case declares), answering call after call as ``providerSteps`` say."""

    tool: str
    provider_steps: list[ProviderStep]


def step_problems(steps: list[ProviderStep], where: str) -> Iterator[tuple[str, str]]:
    """What the provider answers: at least one step, each meaning one thing."""
    if not steps:
        yield where, "must list what the provider answers, at least once"
    for index, step in enumerate(steps):
        path = f"{where}[{index}]"
        if isinstance(step, SuccessStep):
            padding = step.padding_bytes
            if padding is not None and not 1 <= padding <= MAX_PADDING:
                yield f"{path}.paddingBytes", f"must be an integer from 1 to {MAX_PADDING}"
        elif isinstance(step, RefuseStep):
            if step.body is not None and step.code is not None:
                yield f"{path}.body", "answers the refusal whole: drop code, or drop body"
            elif step.body is None and (step.code is None or not step.code.strip()):
                yield f"{path}.code", "must name the code the provider refuses with"
        else:
            if step.retry_after_ms <= 0:
                yield f"{path}.retryAfterMs", "must be a positive number of milliseconds"
            if step.code is not None and not step.code.strip():
                yield f"{path}.code", "when present, must be a non-empty code"


def tool_provider_problems(block: ToolProvider, case: CaseBase) -> Iterator[tuple[str, str]]:
    """The served Tool is one the Case declares, and none of its results is scripted."""
    where = "$.toolProvider"
    declared = {t.name for t in case.tools} | set(case.platform_tools)
    if block.tool not in declared:
        yield f"{where}.tool", f"{block.tool!r} is not a Tool the Case declares"
    for index, result in enumerate(case.tool_results):
        if result.name == block.tool:
            yield (
                f"$.toolResults[{index}].name",
                f"{block.tool!r} is served by its provider: drop its scripted result",
            )
    yield from step_problems(block.provider_steps, f"{where}.providerSteps")


def block_problems(block: RoutineBlock) -> Iterator[tuple[str, str]]:
    """The block's own rules: definition, contract, inputs, steps, approval."""
    try:
        resolved = block.resolved()
    except canonical.CanonicalError as error:
        yield error.path, error.reason
        return
    definition, contract = resolved.definition, resolved.tool_contract
    where = "$.routine.definition"
    if not re.match(_SLUG, definition.slug):
        yield f"{where}.slug", f"{definition.slug!r} is not a lowercase-hyphenated slug"
    tools = [i for i, s in enumerate(definition.states) if s.type == "tool"]
    if len(tools) != 1:
        yield f"{where}.states", f"a Routine has exactly one tool State, not {len(tools)}"
    seen: dict[str, str] = {}
    for index, state in enumerate(definition.states):
        path = f"{where}.states[{index}]"
        if not state.key:
            yield f"{path}.key", "must be a non-empty string"
        elif state.key in seen:
            yield f"{path}.key", f"State key {state.key!r} is used twice"
        if state.type == "tool":
            if state.tool != contract.name:
                yield (
                    f"{path}.tool",
                    f"calls {state.tool!r}; the Tool the contract declares is {contract.name!r}",
                )
            if state.output is not None:
                yield f"{path}.output", "a tool State's output is what its provider answers"
            yield from _references(state.arguments, f"{path}.arguments", definition.inputs, {})
        else:
            if state.tool is not None or state.arguments is not None:
                yield path, "a capture State calls no Tool: it has only key, type and output"
            if state.output is None:
                yield f"{path}.output", "a capture State says what it keeps"
            yield from _references(state.output, f"{path}.output", definition.inputs, seen)
        seen.setdefault(state.key, state.type)
    for name in sorted(set(definition.inputs) - set(block.inputs)):
        yield "$.routine.inputs", f"the definition declares input {name!r}; give its value"
    for name in sorted(set(block.inputs) - set(definition.inputs)):
        yield f"$.routine.inputs.{name}", f"{name!r} is not an input the definition declares"
    if not contract.name:
        yield "$.routine.toolContract.name", "must be a non-empty string"
    yield from step_problems(block.provider_steps, "$.routine.providerSteps")
    if block.approval is not None and not contract.requires_approval:
        yield (
            "$.routine.approval",
            "the Tool asks for no approval: set toolContract.requiresApproval or drop approval",
        )


def _references(
    template: Any, where: str, inputs: Mapping[str, Any], earlier: Mapping[str, str]
) -> Iterator[tuple[str, str]]:
    for path, source in _sources(template, where):
        root, _, rest = source.partition(".")
        name = rest.split(".", 1)[0]
        if root == "inputs" and name not in inputs:
            yield path, f"reads the undeclared input {name!r}"
        elif root == "states" and earlier.get(name) != "tool":
            yield path, f"reads State {name!r}, which is not an earlier tool State"
        elif root not in ("inputs", "states"):
            yield path, f"{source!r} reads neither inputs nor states"


def _sources(template: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(template, dict):
        if set(template) == {_FROM}:
            yield f"{where}.{_FROM}", str(template[_FROM])
            return
        for key, value in template.items():
            yield from _sources(value, f"{where}.{key}")
    elif isinstance(template, list):
        for index, value in enumerate(template):
            yield from _sources(value, f"{where}[{index}]")


def case_problems(case: CaseBase) -> Iterator[tuple[str, str]]:
    """A routine Case runs its Routine alone: no Case Tools, no other plug-in's fields."""
    generic = frozenset(CaseBase.__struct_fields__)
    for name in type(case).__struct_fields__:
        if name in generic or name == FIELD or getattr(case, name, None) is None:
            continue
        yield f"$.{json_name(name)}", f"a 'routine' Case may not carry {json_name(name)!r}"
    for attr, path in (
        ("tools", "$.tools"),
        ("platform_tools", "$.platformTools"),
        ("tool_results", "$.toolResults"),
    ):
        if getattr(case, attr):
            yield path, f"a 'routine' Case calls its toolContract's Tool; drop {path[2:]!r}"
