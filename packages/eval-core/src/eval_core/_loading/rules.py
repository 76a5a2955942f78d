"""The Case's own rules: what every Case holds, whatever plug-ins it uses.

Its id is its file's stem (a variant's starts with its source Case's), it expects something,
it has input, it asks for a bounded number of Trials, and every scripted Tool call is named with
its call id used once. As in the original, a script is not required: a Case without one (a
model fault) or with one it never replays (no model) loads with a note.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from eval_core._case.case import CaseBase, CaseField, ToolCallsStep, json_name
from eval_core._loading.problem import Problem
from eval_core._util.limits import MAX_TRIALS_PER_CASE


def values(
    file: str, stem: str | None, case: CaseBase, variant_of: str | None = None
) -> Iterator[Problem]:
    """The id, expect, input and trials rules."""
    if variant_of is not None:
        if not case.id.startswith(f"{variant_of}--"):
            yield Problem(file, "$.id", f"a variant's id must start with {variant_of}--")
    elif case.id != stem:
        yield Problem(file, "$.id", f"id {case.id!r} must equal the file stem {stem!r}")
    if not case.id:
        yield Problem(file, "$.id", "must be a non-empty string")
    elif any(c.isspace() or not c.isprintable() for c in case.id):
        # an id is printed at the start of Scorecard lines: a line break in it forges lines
        yield Problem(file, "$.id", "must not contain whitespace or control characters")
    if not case.expect:
        yield Problem(file, "$.expect", "a Case that expects nothing always passes")
    if not case.input:
        yield Problem(file, "$.input", "must hold at least one message")
    if case.trials < 1:
        yield Problem(file, "$.trials", "must be an integer >= 1")
    elif case.trials > MAX_TRIALS_PER_CASE:
        yield Problem(file, "$.trials", f"{case.trials} is over the limit of {MAX_TRIALS_PER_CASE}")


def _modelless(case: CaseBase, fields: Mapping[str, CaseField]) -> list[str]:
    return [
        json_name(name)
        for name, spec in fields.items()
        if not spec.runs_model and case.field(name) is not None
    ]


def runs_model(case: CaseBase, fields: Mapping[str, CaseField]) -> bool:
    """Whether a model answers the Case (none does when a plug-in field of it runs none)."""
    return not _modelless(case, fields)


def script_notes(file: str, case: CaseBase, fields: Mapping[str, CaseField]) -> Iterator[str]:
    """Where a Case's script is not what replays its model, as the original allows: a script on
    a Case that runs no model is ignored; a Case without one errors at its first model call
    (a Case whose fault fails the model before it is asked needs none)."""
    modelless = _modelless(case, fields)
    if modelless and case.script is not None:
        yield f"{file}: $.script: ignored: a {modelless[0]!r} Case runs no model"
    elif not modelless and case.script is None:
        yield (
            f"{file}: $.script: none: the scripted binding has nothing to replay, so a model "
            "call the Case makes errors its Trial"
        )


def script(file: str, case: CaseBase, fields: Mapping[str, CaseField]) -> Iterator[Problem]:
    """Every scripted Tool call named and its call id used once (whether a Case carries a
    script at all is a note, :func:`script_notes`)."""
    call_ids: set[str] = set()
    for index, step in enumerate(case.script or ()):
        if not isinstance(step, ToolCallsStep):
            continue
        if not step.calls:
            yield Problem(
                file, f"$.script[{index}].calls", "a tool_calls step needs at least one call"
            )
        for c_index, call in enumerate(step.calls):
            path = f"$.script[{index}].calls[{c_index}]"
            if not call.call_id:
                yield Problem(file, f"{path}.callId", "must be a non-empty string")
            elif call.call_id in call_ids:
                yield Problem(file, f"{path}.callId", f"callId {call.call_id!r} is used twice")
            call_ids.add(call.call_id)
            if not call.name:
                yield Problem(file, f"{path}.name", "must be a non-empty string")
