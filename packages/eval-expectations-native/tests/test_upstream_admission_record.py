"""The native admission record in the original's shape (issue 21, section 5), read back from the
reference runtime's database through the installed Host: a Routine Run acting for the route's
owner ``eval``, initiated by the ``github`` integration, its request the Routine's manual request
with the channel's inputs; the original's refusal codes, and the account the authority resolved
(none when it refused)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_kit import Agent, Kit

APPROVED: dict[str, Any] = {
    "run.source": "routine",
    "run.status": "queued",
    "run.identity.initiator": {"kind": "integration", "id": "github"},
    "run.identity.effectiveSubject": {"kind": "user", "id": "eval"},
    "run.identity.guardrailContextRef": "native-channel-inbox:eval-native-event",
    "request.slug": "eval-native-review",
    "request.inputs.nativeChannel.destination": "eval/native#42",
    "request.inputs.nativeChannel.eventType": "issues.opened",
    "request.inputs.nativeChannel.eventId": "eval-native-event",
    "accountId": "approved-native-account",
    "inboxCorrelated": True,
    "error": None,
}


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kit]:
    found = Kit(tmp_path_factory.mktemp("native"), agents={"support": Agent()})
    yield found
    found.clean()


def native_case(kit: Kit, fault: str | None, expected: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "destination": "eval/native#42",
        "accountId": "approved-native-account",
    }
    if fault is not None:
        block["fault"] = fault
    expect = [
        {"kind": "native_admission_equals", "path": path, "value": value}
        for path, value in expected.items()
    ]
    case = kit.case(*expect, tier="l3", nativeRoutine=block, id=f"native-{fault or 'ok'}")
    del case["script"]  # a native Case runs no model
    return case


def failures(kit: Kit, case: dict[str, Any]) -> list[str]:
    result = kit.run(case)
    assert result.outcome in ("passed", "failed"), result.error
    assert len(result.expectations) == len(case["expect"])
    return [v.detail for v in result.expectations if not v.passed]


def test_an_admitted_run_reads_as_the_originals(kit: Kit) -> None:
    assert failures(kit, native_case(kit, None, APPROVED)) == []


def test_the_old_spelling_no_longer_matches(kit: Kit) -> None:
    old = {"run.source": "native", "request.destination": "eval/native#42"}
    assert len(failures(kit, native_case(kit, None, old))) == 2


@pytest.mark.parametrize(
    ("fault", "error", "account"),
    [
        ("account_revoked", "routine_approval_required", None),
        ("lease_lost", "native_delivery_lease_lost", "approved-native-account"),
        ("route_changed", "native_routine_route_changed", "approved-native-account"),
    ],
)
def test_a_refusal_names_its_code_and_the_account_resolved(
    kit: Kit, fault: str, error: str, account: str | None
) -> None:
    expected = {"runCount": 0, "run": None, "inboxRunId": None, "error": error}
    expected["accountId"] = account
    assert failures(kit, native_case(kit, fault, expected)) == []


def test_the_kit_soul_is_written_in_the_originals_format(kit: Kit, tmp_path: Path) -> None:
    text = (kit.write([kit.case()]) / "soul" / "agents" / "support" / "AGENT.md").read_text()
    assert text.startswith("---\ndescription: ") and "tools:" not in text
