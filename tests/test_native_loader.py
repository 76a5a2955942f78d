"""Loader rules of the native family: each refusal names the file, the JSON path and the reason.

A nativeRoutine Case is L3, carries only native_admission_equals, sets no other plug-in's
field, declares and scripts no Tool; native_admission_equals needs nativeRoutine and a path
that starts inside the observation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.loader import Loader
from tests.conftest import Refuses, WriteCase, minimal_case

BLOCK = {"destination": "eval/native#42", "accountId": "approved-native-account"}
RUNS = {"kind": "native_admission_equals", "path": "runCount", "value": 1}


def native(**overrides: Any) -> dict[str, Any]:
    case = minimal_case(tier="l3", nativeRoutine=dict(BLOCK), expect=[RUNS])
    del case["script"]
    case.update(overrides)
    return case


def test_a_native_case_loads_with_its_block_typed(
    loader: Loader, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(native(nativeRoutine={**BLOCK, "fault": "lease_lost"}))
    [case] = loader.load(corpus_dir).cases
    block = case.field("native_routine")
    assert (block.destination, block.account_id, block.fault) == (
        "eval/native#42",
        "approved-native-account",
        "lease_lost",
    )


@pytest.mark.parametrize(
    ("case", "path", "reason"),
    [
        (native(tier="l2"), "$.nativeRoutine", "'nativeRoutine' is l3-only; this Case is l2"),
        (
            native(expect=[{"kind": "run_status", "status": "queued"}]),
            "$.expect[0].kind",
            "a 'nativeRoutine' Case carries only 'native_admission_equals', not 'run_status'",
        ),
        (native(fault="model"), "$.fault", "a 'nativeRoutine' Case may not carry 'fault'"),
        (
            native(journey=[{"input": [{"role": "user", "content": "x"}]}]),
            "$.journey",
            "a 'nativeRoutine' Case may not carry 'journey'",
        ),
        (
            native(platformTools=["lookup_ticket"]),
            "$.platformTools",
            "a 'nativeRoutine' Case runs no Tool; drop 'platformTools'",
        ),
        (
            native(tools=[{"name": "probe", "inputSchema": {"type": "object"}}]),
            "$.tools",
            "a 'nativeRoutine' Case runs no Tool; drop 'tools'",
        ),
        (
            native(nativeRoutine={**BLOCK, "fault": "disk_full"}),
            "$.nativeRoutine.fault",
            "Invalid enum value 'disk_full'",
        ),
        (
            native(nativeRoutine={**BLOCK, "destination": " "}),
            "$.nativeRoutine.destination",
            "must be a non-empty string",
        ),
        (
            native(expect=[{"kind": "native_admission_equals", "path": "runs", "value": 1}]),
            "$.expect[0].path",
            "unknown native admission field 'runs'",
        ),
        (
            minimal_case(tier="l3", expect=[RUNS]),
            "$.expect[0].kind",
            "'native_admission_equals' needs 'nativeRoutine'",
        ),
    ],
)
def test_a_native_rule_is_refused_with_file_path_and_reason(
    refuses: Refuses, case: dict[str, Any], path: str, reason: str
) -> None:
    refuses(case, path, reason, alone=case["tier"] == "l3")
