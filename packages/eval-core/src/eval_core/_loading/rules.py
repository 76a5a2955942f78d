"""The Case's own rules: what every Case holds, whatever plug-ins it uses.

Its id is its file's stem (a variant's starts with its source Case's), it expects something,
it has input, it asks for a bounded number of Trials, and it carries a script exactly when it
runs a model, with every scripted Tool call named and its call id used once.
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


def script(file: str, case: CaseBase, fields: Mapping[str, CaseField]) -> Iterator[Problem]:
    """A script exactly when the Case runs a model (a plug-in field may say it runs none)."""
    modelless = [
        json_name(name)
        for name, spec in fields.items()
        if not spec.runs_model and case.field(name) is not None
    ]
    if modelless and case.script is not None:
        yield Problem(
            file,
            "$.script",
            f"a {modelless[0]!r} Case runs no model: drop 'script' (nothing would replay it)",
        )
    elif not modelless and case.script is None:
        without = sorted(json_name(n) for n, s in fields.items() if not s.runs_model)
        which = f" (only a Case with {', '.join(without)} runs none)" if without else ""
        yield Problem(
            file,
            "$.script",
            "missing: a Case that runs a model carries a script, so the Corpus runs free and "
            f"deterministically in CI{which}",
        )
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
