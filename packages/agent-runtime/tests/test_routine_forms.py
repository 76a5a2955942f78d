"""The original's two Routine forms: the canonical envelope runs as the runtime's own form, the
workflow form is linted and never started, and each lint names the path of what is wrong."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agent_runtime.routines.definitions import RoutineError, lint, parse, resolve

CANONICAL: dict[str, Any] = {
    "apiVersion": "tulipfarm.ai/v1",
    "kind": "Routine",
    "metadata": {"slug": "send-once"},
    "spec": {
        "start": "Send",
        "states": [
            {"type": "tool", "name": "Send", "toolRef": {"name": "message.send"},
             "input": {"text": "${ input.text }"}, "transition": "Capture"},
            {"type": "compute", "name": "Capture",
             "input": {"output": "${ states.Send.output }"}, "end": True},
        ],
    },
}  # fmt: skip
WORKFLOW: dict[str, Any] = {
    "id": "sweep",
    "version": "1.0.0",
    "start": "Report",
    "x-triggers": [{"type": "cron", "schedule": "0 8 * * *"}],
    "functions": [{"name": "triage", "operation": "agent:triage"}],
    "states": [
        {"name": "Report", "type": "operation", "end": True,
         "actions": [{"functionRef": {"refName": "triage", "arguments": {"prompt": "List."}}}]},
    ],
}  # fmt: skip


def test_a_canonical_definition_runs_as_the_runtime_form() -> None:
    routine = parse(CANONICAL)
    assert routine.runnable and routine.form == "canonical"
    assert routine.states[0].tool == "message.send" and set(routine.inputs) == {"text"}
    scope = {"inputs": {"text": "hi"}, "states": {"send": {"output": {"receiptId": "r-1"}}}}
    assert resolve(routine.states[0].arguments, scope) == {"text": "hi"}
    assert resolve(routine.states[1].output, scope) == {"receiptId": "r-1"}


def test_a_workflow_definition_lints_clean_and_is_never_started() -> None:
    routine = parse(WORKFLOW)
    assert routine.form == "workflow" and not routine.runnable and routine.states == ()


def test_a_canonical_definition_with_branches_is_published_not_run() -> None:
    branching = copy.deepcopy(CANONICAL)
    branching["spec"]["states"].append(
        {"type": "branch", "name": "Decide", "conditions": [{"condition": "true", "end": True}]}
    )
    branching["spec"]["start"] = "Decide"
    assert lint(branching) == [] and not parse(branching).runnable


def _broken(form: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    data = copy.deepcopy(form)
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("definition", "finding"),
    [
        (_broken(WORKFLOW, ["start"], "Nope"), "$.start: 'Nope' names no State"),
        (_broken(WORKFLOW, ["states", 0, "type"], "sleep"), "$.states[0].type: 'sleep'"),
        (
            _broken(WORKFLOW, ["states", 0, "actions", 0, "functionRef", "refName"], "x"),
            "$.states[0].actions[0].functionRef: 'x' names no function",
        ),
        (_broken(WORKFLOW, ["states", 0, "end"], False), "either ends (end: true) or names"),
        (_broken(CANONICAL, ["apiVersion"], "v0"), "$.apiVersion: must be 'tulipfarm.ai/v1'"),
        (
            _broken(CANONICAL, ["spec", "states", 0, "transition"], "Gone"),
            "$.spec.states[0].transition: 'Gone' names no State",
        ),
        (
            _broken(CANONICAL, ["spec", "states", 0, "toolRef"], {}),
            "$.spec.states[0].toolRef.name: names the Tool",
        ),
        (
            _broken(CANONICAL, ["spec", "states", 1, "input"], {"output": "${ states.Capture }"}),
            "$.spec.states[1].output: reads State 'capture', which is not an earlier tool State",
        ),
    ],
)
def test_each_finding_names_its_path(definition: dict[str, Any], finding: str) -> None:
    found = [str(f) for f in lint(definition)]
    assert any(finding in f for f in found), found
    with pytest.raises(RoutineError):
        parse(definition)


def test_a_read_of_a_field_a_closed_output_schema_lacks_is_a_finding() -> None:
    """``${ states.Total.output.subtotal }`` when Total's output declares only ``total`` (and
    no other property) can only ever read nothing: the doctor's finding to repair."""
    total: dict[str, Any] = {"type": "object", "additionalProperties": False}
    total["properties"] = {"total": {}}
    states: list[dict[str, Any]] = [
        {"type": "compute", "name": "Total", "input": {"total": 1}, "output": total}
        | {"transition": "Report"},
        {"type": "compute", "name": "Report", "input": {"value": "${states.Total.output.subtotal}"}}
        | {"end": True},
    ]
    data: dict[str, Any] = {"apiVersion": "tulipfarm.ai/v1", "kind": "Routine"}
    data["metadata"] = {"slug": "quote"}
    data["spec"] = {"start": "Total", "states": states}
    assert [str(f) for f in lint(data)] == [
        "$.spec.states[1].input.value: reads 'subtotal' of State 'Total', whose output schema "
        "declares only 'total'"
    ]
    states[1]["input"] = {"value": "${ states.Total.output.total }"}
    assert lint(data) == []
    del total["additionalProperties"]  # open: another field may be there
    states[1]["input"] = {"value": "${ states.Total.output.subtotal }"}
    assert lint(data) == []
