"""Break the MCP account authority and dispatch on purpose; the right Cases turn red.

Each test swaps one piece of the real runtime for a broken variant (an authority that falls
back to another account, one that skips the grant check, a dispatcher that sends a call twice),
sweeps the guarding Cases with the scripted binding, and asserts they fail. The same Cases pass
against the real code. A provider count that was not observed fails too, even when zero was
expected.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from agent_runtime.mcp import accounts as mcp_accounts
from agent_runtime.mcp import dispatch as mcp_dispatch
from agent_runtime.mcp.accounts import Decision
from agent_runtime.mcp.client import McpClients
from eval_expectations_mcp.setup import Provider
from tests.conftest import ROOT, Sweep, over_the_soul, shipped_corpus

FALLBACK = [
    "l3-mcp-an-expired-personal-account-never-falls-back",
    "l3-mcp-ambiguous-accounts-require-selection",
    "l3-mcp-a-personal-account-cannot-enter-a-shared-chat",
]
GRANT = [
    "l3-mcp-shared-consent-does-not-replace-a-grant",
    "l3-mcp-a-revoked-grant-blocks-an-approved-call",
]
REVOKED = ["l3-mcp-a-revoked-grant-blocks-an-approved-call"]
ONE_CALL = sorted(
    p.stem
    for p in (ROOT / "corpus").glob("l3-mcp-*.json")
    if '"kind": "mcp_provider_call_count",\n      "count": 1' in p.read_text()
)
ALL = sorted({p.stem for p in (ROOT / "corpus").glob("l3-mcp-*.json")})


real_host = pytest.fixture(over_the_soul, scope="module", name="real_host")
corpus = pytest.fixture(shipped_corpus, scope="module", name="corpus")


def selected_account(conn: Any, conversation_id: str) -> tuple[str, str] | None:
    """The account the conversation selected, and its credential (``None``: none selected)."""
    row = conn.execute(
        "SELECT s.account_id, a.credential FROM mcp_selections s JOIN mcp_accounts a "
        "ON a.conversation_id = s.conversation_id AND a.id = s.account_id "
        "WHERE s.conversation_id = ?",
        (conversation_id,),
    ).fetchone()
    return None if row is None else (row[0], row[1])


def resolving(
    monkeypatch: pytest.MonkeyPatch, override: Callable[[Any, str, Decision], Decision]
) -> None:
    """The dispatcher's account authority mutated: the real one decides, then ``override``
    (given the connection, the conversation and that decision) has the last word."""
    real = mcp_accounts.resolve

    def resolve(conn: Any, conversation_id: str, now: datetime | None = None) -> Decision:
        return override(conn, conversation_id, real(conn, conversation_id, now))

    monkeypatch.setattr(mcp_dispatch, "resolve", resolve)


def test_every_mcp_case_passes_against_the_real_runtime(sweep: Sweep) -> None:
    assert len(ALL) >= 10
    found = sweep.outcomes(ALL)
    assert set(found.values()) == {"passed"}, found


def test_an_authority_that_falls_back_turns_the_fallback_cases_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def falling_back(
        conn: sqlite3.Connection, conversation_id: str, decision: Decision
    ) -> Decision:
        if decision.account_id is not None:
            return decision
        for account_id, credential in conn.execute(
            "SELECT id, credential FROM mcp_accounts WHERE conversation_id = ? "
            "AND status = 'active' AND (expires_at IS NULL OR expires_at > '2100') ORDER BY id",
            (conversation_id,),
        ):
            return Decision(account_id, credential=credential)
        return decision

    resolving(monkeypatch, falling_back)
    sweep.red(FALLBACK)


def test_an_authority_that_skips_the_grant_check_turns_the_grant_cases_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_grant_check(
        conn: sqlite3.Connection, conversation_id: str, decision: Decision
    ) -> Decision:
        reason = decision.reason or ""
        if "grant" in reason:
            row = selected_account(conn, conversation_id)
            assert row is not None
            return Decision(row[0], credential=row[1])
        return decision

    resolving(monkeypatch, no_grant_check)
    sweep.red(GRANT)


def test_a_dispatcher_that_sends_a_call_twice_turns_the_count_cases_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_call = McpClients.call_tool

    def twice(self: McpClients, *args: Any) -> Any:
        with contextlib.suppress(Exception):  # a refused first call is sent again all the same
            real_call(self, *args)
        return real_call(self, *args)

    monkeypatch.setattr(McpClients, "call_tool", twice)
    assert len(ONE_CALL) >= 3
    sweep.red(ONE_CALL)


def test_a_provider_count_not_observed_fails_even_when_zero_is_expected(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Provider, "calls", lambda _self, _credentials: None)
    sweep.red(REVOKED)
