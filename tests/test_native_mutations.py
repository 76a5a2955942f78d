"""Break native admission on purpose and watch the right Case turn red.

Each test swaps one piece of the real admission for a broken variant, sweeps the native Cases
in-process with the scripted binding, and asserts the guarding Case no longer passes, while
the same Cases pass against the real code.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from agent_runtime.native import admission
from agent_runtime.native.accounts import ResolvedAccount
from agent_runtime.native.inbox import InboxEvent
from agent_runtime.native.routes import Route
from tests.conftest import Sweep

APPROVED = "l3-native-routine-approved-route-account"
LEASE = "l3-native-routine-lost-lease-rolls-back-everything"
REVOKED = "l3-native-routine-revoked-account-is-denied"
ROUTE = "l3-native-routine-route-changed-is-denied"
ALL = [APPROVED, LEASE, REVOKED, ROUTE]


def test_the_native_cases_pass_against_the_real_admission(sweep: Sweep) -> None:
    sweep.green(ALL)


def test_committing_the_run_before_the_fence_check_turns_the_lease_case_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_insert = admission._insert_run

    def committed_early(conn: sqlite3.Connection, route: Route, who: Any = None) -> str:
        run_id = real_insert(conn, route, who)
        conn.execute("COMMIT")  # the Run is durable before the fenced correlation
        conn.execute("BEGIN")
        return run_id

    monkeypatch.setattr(admission, "_insert_run", committed_early)
    found = sweep.outcomes([LEASE, APPROVED])
    assert found == {LEASE: "failed", APPROVED: "passed"}


def test_trusting_the_event_payload_for_the_account_turns_the_revoked_case_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def from_payload(_conn: sqlite3.Connection, event: InboxEvent) -> ResolvedAccount:
        claimed = event.payload["sender"]["account"]
        if claimed["status"] != "approved":
            raise admission.AdmissionRefusedError(admission.APPROVAL_REQUIRED, "payload says so")
        return ResolvedAccount(claimed["id"], "approved")

    monkeypatch.setattr(admission, "_resolve_account", from_payload)
    found = sweep.outcomes([REVOKED, APPROVED])
    assert found == {REVOKED: "failed", APPROVED: "passed"}


def test_skipping_the_route_check_turns_the_route_case_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def any_route(_conn: sqlite3.Connection, event: InboxEvent) -> Route:
        return Route(event.destination, event.routine, "support")

    monkeypatch.setattr(admission, "_current_route", any_route)
    assert sweep.outcomes([ROUTE]) == {ROUTE: "failed"}
