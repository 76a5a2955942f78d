"""Loader rules of the rest of the spec's Case surface, each refusal with file, path and reason.

Optional scripts, retired context keys, Tool results that park a call (approvalId,
retryWaitId), Tool declaration extras; the family fields (routine, integrationReply, doctor,
contextTokenBudget, hostingAuthority) have their rules at the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_core.corpus import Loader
from tests.conftest import WriteCase, minimal_case
from tests.test_loader import only, refusal

TICKET = {"name": "lookup_ticket", "output": {"ticketId": "T-1", "status": "shipped"}}


def without_script(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(**overrides)
    del case["script"]
    return case


def l3(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(tier="l3", expect=[{"kind": "run_status", "status": "succeeded"}])
    case.update(overrides)
    return case


CORE_REFUSALS: list[tuple[dict[str, Any], str, str]] = [
    (
        without_script(),
        "$.script",
        "missing: a Case that runs a model carries a script, so the Corpus runs free",
    ),
    (
        minimal_case(
            tier="l3",
            nativeRoutine={"destination": "eval/native#1", "accountId": "a"},
            expect=[{"kind": "native_admission_equals", "path": "runCount", "value": 1}],
            script=[],
        ),
        "$.script",
        "a 'nativeRoutine' Case runs no model: drop 'script'",
    ),
    (
        minimal_case(context={"memory": ["Order 4471 was refunded."]}),
        "$.context.memory",
        "'memory' is retired: what the agent remembers reaches the model as the conversation",
    ),
    (
        minimal_case(context={"customInstructions": "Sign off."}),
        "$.context.customInstructions",
        "'customInstructions' is retired: per-conversation instructions are 'platformInstructions'",
    ),
    (
        minimal_case(context={"taggedResources": []}),
        "$.context.taggedResources",
        "'taggedResources' is retired: a tagged record reaches the model",
    ),
    (
        minimal_case(context={"temporal": {"now": "2024-05-01"}}),
        "$.context.temporal",
        "'temporal' is retired: the current time comes from the get_current_time Tool",
    ),
    (
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "approvalId": "a1", "error": "boom"}],
        ),
        "$.toolResults[0]",
        "at most one of denied, error, invalidArguments, approvalId, retryWaitId",
    ),
    (
        minimal_case(
            platformTools=["lookup_ticket"],
            toolResults=[{"name": "lookup_ticket", "retryWaitId": ""}],
        ),
        "$.toolResults[0]",
        "an approvalId or a retryWaitId must be non-empty",
    ),
    (
        minimal_case(
            tools=[
                {"name": "send", "inputSchema": {"type": "object"}, "participantActivity": "loud"}
            ]
        ),
        "$.tools[0].participantActivity",
        "Invalid enum value 'loud'",
    ),
]


@pytest.mark.parametrize(("case", "path", "reason"), CORE_REFUSALS)
def test_core_surface_refusals_name_file_path_and_reason(
    loader: Loader,
    corpus_dir: Path,
    write_case: WriteCase,
    case: dict[str, Any],
    path: str,
    reason: str,
) -> None:
    write_case(case)
    file, where, why = only(refusal(loader, corpus_dir))
    assert (file, where) == ("c.json", path), why
    assert reason in why


def test_the_parking_results_and_tool_extras_load_typed(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(
        minimal_case(
            tools=[
                {
                    "name": "send_invoice",
                    "inputSchema": {"type": "object"},
                    "mutating": True,
                    "sideEffecting": True,
                    "participantActivity": "represented",
                }
            ],
            toolResults=[
                {"name": "send_invoice", "approvalId": "appr-7"},
                {"name": "send_invoice", "retryWaitId": "wait-3"},
            ],
        )
    )
    [case] = loader.load(corpus_dir).cases
    [tool] = case.tools
    assert (tool.side_effecting, tool.participant_activity) == (True, "represented")
    assert [(r.approval_id, r.retry_wait_id) for r in case.tool_results] == [
        ("appr-7", None),
        (None, "wait-3"),
    ]


def test_an_empty_script_is_still_a_script(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    """A Case whose model is never called says so with ``script: []``."""
    write_case(minimal_case(script=[], expect=[{"kind": "model_not_called"}]))
    assert loader.load(corpus_dir).cases[0].script == []
