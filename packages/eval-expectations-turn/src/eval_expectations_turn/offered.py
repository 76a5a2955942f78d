"""The Tools the model is offered: each declaration as the binding put it in a request.

A model calls a Tool from its declaration alone: a blank description, a dropped ``required``
or a loosened bound changes what the model does without any Tool call changing. So
``tool_offered`` reads the declaration from every request the binding sent (not from the Case,
not from the runtime's catalogue), part of the prompt family: what the model was given.
"""

from __future__ import annotations

from typing import Any

from eval_core.kinds import (
    PATH,
    TEXT,
    Evidence,
    Expectation,
    KindSpec,
    Location,
    Verdict,
    deep_equal,
    failed,
    need,
    passed,
    quoted,
    render,
    resolve,
    rules,
    scorer,
)


class ToolOffered(Expectation, tag="tool_offered", frozen=True):
    name: str
    path: str
    value: Any


def _declaration(tool: Any) -> dict[str, Any]:
    """A recorded declaration as a Case spells it: ``name``, ``description``, ``inputSchema``."""
    return {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema}


@scorer
def _score_tool_offered(e: ToolOffered, ev: Evidence) -> Verdict:
    """Every request offered the Tool, and its declaration holds the value at the path in each
    (a Tool offered on the first request and dropped later is not offered)."""
    what = f"the declaration of {quoted(e.name)}"
    requests = need(ev.model_requests, f"model requests not observed; cannot read {what}")
    need(requests or None, f"the model received no request; cannot read {what}")
    for number, request in enumerate(requests, start=1):
        at = Location.request_at(number - 1)
        where = f"model request #{number} of {len(requests)}"
        if request.offered is None:
            return failed(f"{where}: Tool declarations not recorded; cannot read {what}", at)
        mine = [t for t in request.offered if t.name == e.name]
        if not mine:
            names = ", ".join(t.name for t in request.offered[:20]) or "no Tool"
            return failed(f"{where} did not offer {quoted(e.name)}; it offered {names}", at)
        found, actual = resolve(_declaration(mine[0]), e.path)
        if not found:
            return failed(f"{where}: {what} has no {e.path}", at)
        if not deep_equal(actual, e.value):
            return failed(
                f"{where}: {what} has {e.path} = {render(actual)}, expected {render(e.value)}", at
            )
    return passed(
        f"all {len(requests)} model request(s) offered {quoted(e.name)} with "
        f"{e.path} = {render(e.value)}",
        Location.REQUESTS,
    )


def tool_offered_kind() -> KindSpec:
    return KindSpec(
        struct=ToolOffered,
        scorer=_score_tool_offered,
        witness="binding",
        evidence_at=Location.REQUESTS,
        tool_fields=("name",),
        **rules(name=TEXT, path=PATH),
        description=(
            "Every model request, as the binding sent it, offered the Tool, and its declaration "
            "(name, description, inputSchema) has the value at the path (deep equality)."
        ),
        examples=[
            {
                "kind": "tool_offered",
                "name": "file_read",
                "path": "inputSchema.required",
                "value": ["fileId"],
            }
        ],
    )
