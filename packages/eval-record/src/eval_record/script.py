"""A recorded Trial's Evidence as the Case fields that replay it: ``script``, ``recorded`` and,
when asked, ``toolResults``.

Read from the binding's witness (:attr:`Evidence.answers`: each reply as the binding received
it, before the runtime did anything with it; :attr:`Evidence.shown`: what each request showed
the model), never from the runtime's record of the conversation, so a guard that replaced an
answer does not put its own words in the model's mouth.
"""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core.records import (
    Evidence,
    Recorded,
    ScriptedCall,
    ScriptedResult,
    ScriptStep,
    StructuredStep,
    TextStep,
    ToolCallsStep,
    recorded_from,
)


class NotRecordable(Exception):  # noqa: N818 - it names an outcome
    """The Trial's Evidence cannot be written as a script: the message says why, one line."""


def script_of(evidence: Evidence) -> list[ScriptStep]:
    """One step per model reply, in order. A call to a Tool the request did not offer is
    marked ``unoffered`` (the model invented it: the Case then tests how the runtime refuses
    it); a call id a model repeated is made unique (the loader wants each used once)."""
    answers, shown = _witnessed(evidence)
    used: set[str] = set()
    steps: list[ScriptStep] = []
    for answer, request in zip(answers, shown, strict=True):
        steps.append(_step(answer, request, used))
    return steps


def _witnessed(evidence: Evidence) -> tuple[list[Any], list[Any]]:
    answers, shown = evidence.answers, evidence.shown
    if not answers or shown is None:
        raise NotRecordable(
            "no model reply was observed (the binding's record of the replies is empty)"
        )
    if len(answers) != len(shown):
        raise NotRecordable(
            f"{len(answers)} replies but {len(shown)} requests were observed: not one script"
        )
    return answers, shown


def _step(answer: Any, request: Any, used: set[str]) -> ScriptStep:
    if answer.calls:
        calls = [
            ScriptedCall(
                call_id=_unique(c.call_id or f"c{len(used) + 1}", used),
                name=c.name,
                arguments={} if c.arguments is None else c.arguments,
                unoffered=c.name not in request.tools,
            )
            for c in answer.calls
        ]
        return ToolCallsStep(calls=calls, text=answer.text or None)
    if answer.structured is not None:
        return StructuredStep(value=answer.structured)
    return TextStep(text=answer.text or "")


def _unique(call_id: str, used: set[str]) -> str:
    candidate, n = call_id, 1
    while candidate in used:
        n += 1
        candidate = f"{call_id}-{n}"
    used.add(candidate)
    return candidate


def recorded_of(
    evidence: Evidence, model: str, date: str, version: str | None, host: str | None
) -> Recorded:
    """What each request of the recording showed the model (:class:`Recorded`)."""
    _, shown = _witnessed(evidence)
    return recorded_from(shown, model=model, date=date, version=version, host=host)


def tool_results_of(evidence: Evidence, names: frozenset[str]) -> list[ScriptedResult]:
    """The results the Tools named returned in this Trial, in call order, each answering its
    arguments (``when``) so a replay serves each call what it got; a Tool called once with
    one result needs no ``when``. Only calls that reached the Tool (its own witness) and
    ended ``succeeded`` or ``failed``: a denial is the runtime's decision, made again on
    replay."""
    reached = {c.call_id for c in evidence.tool_calls or ()}
    results = [
        r
        for r in evidence.tool_results or ()
        if r.name in names and r.call_id in reached and r.status in ("succeeded", "failed")
    ]
    calls_per_name: dict[str, int] = {}
    for r in results:
        calls_per_name[r.name] = calls_per_name.get(r.name, 0) + 1
    written: list[ScriptedResult] = []
    for r in results:
        when = r.arguments if calls_per_name[r.name] > 1 else None
        if r.status == "failed":
            written.append(ScriptedResult(name=r.name, when=when, error=r.reason or "failed"))
        else:
            written.append(ScriptedResult(name=r.name, when=when, output=r.output))
    return written


def as_json(value: Any) -> Any:
    """A Case field's value as its file spells it (camelCase, defaults left out)."""
    return msgspec.to_builtins(value)
