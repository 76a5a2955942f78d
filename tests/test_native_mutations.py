"""Break native admission on purpose and watch the right Case turn red.

Each test swaps one piece of the real admission for a broken variant, sweeps the native Cases
in-process with the scripted binding, and asserts the guarding Case no longer passes, while
the same Cases pass against the real code.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence

import pytest

from agent_runtime import admission
from agent_runtime.accounts import ResolvedAccount
from agent_runtime.native_inbox import InboxEvent
from agent_runtime.native_routes import Route
from eval_core.corpus import Corpus, Loader
from eval_core.host import Host
from eval_core.plugins import PluginSet
from eval_core.runner import run_sweep
from eval_core.scripted import ScriptedBinding
from tests.conftest import ROOT

APPROVED = "l3-native-routine-approved-route-account"
LEASE = "l3-native-routine-lost-lease-rolls-back-everything"
REVOKED = "l3-native-routine-revoked-account-is-denied"
ROUTE = "l3-native-routine-route-changed-is-denied"
ALL = [APPROVED, LEASE, REVOKED, ROUTE]


@pytest.fixture
def real_host(plugins: PluginSet) -> Iterator[Host]:
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    yield host
    host.close()


@pytest.fixture
def corpus(plugins: PluginSet, real_host: Host) -> Corpus:
    return Loader(plugins, real_host, judge="no-judge").load(ROOT / "corpus")


def outcomes(
    corpus: Corpus, host: Host, plugins: PluginSet, cases: Sequence[str]
) -> dict[str, str]:
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=cases)
    return {t.case_id: t.outcome for t in card.trials}


def test_the_native_cases_pass_against_the_real_admission(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    assert outcomes(corpus, real_host, plugins, ALL) == dict.fromkeys(ALL, "passed")


def test_committing_the_run_before_the_fence_check_turns_the_lease_case_red(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_insert = admission._insert_run

    def committed_early(conn: sqlite3.Connection, route: Route) -> str:
        run_id = real_insert(conn, route)
        conn.execute("COMMIT")  # the Run is durable before the fenced correlation
        conn.execute("BEGIN")
        return run_id

    monkeypatch.setattr(admission, "_insert_run", committed_early)
    found = outcomes(corpus, real_host, plugins, [LEASE, APPROVED])
    assert found == {LEASE: "failed", APPROVED: "passed"}


def test_trusting_the_event_payload_for_the_account_turns_the_revoked_case_red(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    def from_payload(_conn: sqlite3.Connection, event: InboxEvent) -> ResolvedAccount:
        claimed = event.payload["sender"]["account"]
        if claimed["status"] != "approved":
            raise admission.AdmissionRefusedError("native_account_revoked", "payload says so")
        return ResolvedAccount(claimed["id"], "approved")

    monkeypatch.setattr(admission, "_resolve_account", from_payload)
    found = outcomes(corpus, real_host, plugins, [REVOKED, APPROVED])
    assert found == {REVOKED: "failed", APPROVED: "passed"}


def test_skipping_the_route_check_turns_the_route_case_red(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    def any_route(_conn: sqlite3.Connection, event: InboxEvent) -> Route:
        return Route(event.destination, event.routine, "support")

    monkeypatch.setattr(admission, "_current_route", any_route)
    assert outcomes(corpus, real_host, plugins, [ROUTE]) == {ROUTE: "failed"}
