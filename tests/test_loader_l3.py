"""Loader rules of the L3 plug-ins: journey, fault, checkpointCrash, the run-events kinds.

Each refusal names the file, the JSON path and the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.loader import Loader
from tests.conftest import Refuses, WriteCase, minimal_case, refusal

TICKET = {"name": "lookup_ticket", "output": {"ticketId": "T-1", "status": "shipped"}}
BATCH = {
    "kind": "tool_calls",
    "calls": [
        {"callId": "a", "name": "lookup_ticket", "arguments": {"ticketId": "T-1"}},
        {"callId": "b", "name": "lookup_ticket", "arguments": {"ticketId": "T-2"}},
    ],
}


def l3(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(tier="l3", expect=[{"kind": "run_status", "status": "succeeded"}])
    case.update(overrides)
    return case


def crash(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(
        checkpointCrash="after_first_tool_result",
        platformTools=["lookup_ticket"],
        toolResults=[TICKET],
        script=[BATCH, {"kind": "text", "text": "Both tickets read."}],
        expect=[{"kind": "tool_batch_replayed"}],
    )
    case.update(overrides)
    return case


def test_valid_l3_and_crash_cases_load(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(
        l3(id="j", journey=[{"input": [{"role": "user", "content": "And now?"}]}], fault="model")
    )
    write_case(crash(id="k"))
    corpus = loader.load(corpus_dir)
    assert [c.id for c in corpus.cases] == ["j", "k"]
    assert corpus.case("j").field("journey")[0].input[0].text == "And now?"


@pytest.mark.parametrize(
    ("case", "path", "reason"),
    [
        (
            minimal_case(expect=[{"kind": "run_status", "status": "succeeded"}]),
            "$.expect[0].kind",
            "'run_status' is l3-only; this Case is l2",
        ),
        (
            minimal_case(journey=[{"input": [{"role": "user", "content": "x"}]}]),
            "$.journey",
            "'journey' is l3-only; this Case is l2",
        ),
        (minimal_case(fault="model"), "$.fault", "'fault' is l3-only; this Case is l2"),
        (l3(fault="disk"), "$.fault", "Invalid enum value 'disk'"),
        (l3(journey=[]), "$.journey", "must hold at least one further Turn"),
        (l3(journey=[{"input": []}]), "$.journey[0].input", "must hold at least one message"),
        (
            l3(journey=[{"input": [{"role": "user", "content": "x"}], "toolResults": [TICKET]}]),
            "$.journey[0].toolResults[0].name",
            "scripted result for 'lookup_ticket', which the Case does not declare",
        ),
        (
            l3(expect=[{"kind": "run_status", "status": "failed", "turnIndex": 2}]),
            "$.expect[0].turnIndex",
            "Turn 2 does not exist: this Case runs 1 Turn(s)",
        ),
        (
            l3(expect=[{"kind": "turn_status", "status": "failed", "turnIndex": 0}]),
            "$.expect[0].turnIndex",
            "must be an integer ≥ 1",
        ),
        (
            l3(expect=[{"kind": "run_event_emitted", "eventType": "x", "count": 0}]),
            "$.expect[0].count",
            "must be an integer ≥ 1 (an exact positive count)",
        ),
        (
            l3(expect=[{"kind": "soul_published", "artifact": "skill-a"}]),
            "$.expect[0].artifact",
            "must be Kind:slug",
        ),
        (
            l3(expect=[{"kind": "run_event_text_omits", "text": "zebra"}]),
            "$.expect[0].text",
            "'zebra' is not grounded",
        ),
        (
            l3(
                platformTools=["soul_write"],
                toolResults=[{"name": "soul_write", "output": {}}],
            ),
            "$.toolResults[0].name",
            "soul_write runs for real on L3: never script its result",
        ),
        (
            crash(script=[{"kind": "text", "text": "no batch"}]),
            "$.script[0]",
            "checkpointCrash needs the first script entry to be a batch of two or more",
        ),
        (
            crash(expect=[{"kind": "loop_status", "status": "completed"}]),
            "$.checkpointCrash",
            "checkpointCrash requires a tool_batch_replayed Expectation",
        ),
        (
            minimal_case(expect=[{"kind": "tool_batch_replayed"}]),
            "$.expect[0].kind",
            "tool_batch_replayed requires checkpointCrash",
        ),
        (
            crash(expect=[{"kind": "tool_batch_replayed", "callIds": ["a"]}]),
            "$.expect[0]",
            "unknown field `callIds`",
        ),
    ],
)
def test_refusals_name_file_path_and_reason(
    refuses: Refuses, case: dict[str, Any], path: str, reason: str
) -> None:
    refuses(case, path, reason)


def test_journey_inputs_ground_run_event_text_omits(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(
        l3(
            journey=[{"input": [{"role": "user", "content": "Is the zebra plant in stock?"}]}],
            expect=[{"kind": "run_event_text_omits", "text": "zebra"}],
        )
    )
    assert loader.load(corpus_dir).cases


def test_a_crash_on_l3_is_refused_with_its_kind(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(crash(tier="l3"))
    assert refusal(loader, corpus_dir) == [
        ("c.json", "$.checkpointCrash", "'checkpointCrash' is l2-only; this Case is l3"),
        ("c.json", "$.expect[0].kind", "'tool_batch_replayed' is l2-only; this Case is l3"),
    ]
