"""Break the MCP account authority and the provider count on purpose; the right Cases turn red.

Each test swaps one piece of the real runtime for a broken variant (an authority that falls
back to another account, one that skips the grant check, a count taken from the dispatcher's
attempts instead of the provider), sweeps the guarding Cases with the scripted binding, and
asserts they no longer pass. The same Cases pass against the real code.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from agent_runtime import mcp_accounts, mcp_chat, mcp_dispatch
from agent_runtime.mcp_accounts import Decision
from eval_core.corpus import Corpus, Loader
from eval_core.host import Host
from eval_core.plugins import PluginSet
from tests.conftest import ROOT, outcomes, red

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
ALL = sorted({p.stem for p in (ROOT / "corpus").glob("l3-mcp-*.json")})


@pytest.fixture(scope="module")
def real_host(plugins: PluginSet) -> Iterator[Host]:
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    yield host
    host.close()


@pytest.fixture(scope="module")
def corpus(plugins: PluginSet, real_host: Host) -> Corpus:
    return Loader(plugins, real_host, judge="no-judge").load(ROOT / "corpus")


def test_every_mcp_case_passes_against_the_real_runtime(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    assert len(ALL) >= 10
    found = outcomes(corpus, real_host, plugins, ALL)
    assert set(found.values()) == {"passed"}, found


def test_an_authority_that_falls_back_turns_the_fallback_cases_red(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = mcp_accounts.resolve

    def falling_back(
        conn: sqlite3.Connection, conversation_id: str, now: datetime | None = None
    ) -> Decision:
        decision = real(conn, conversation_id, now)
        if decision.account_id is not None:
            return decision
        for (account_id,) in conn.execute(
            "SELECT id FROM mcp_accounts WHERE conversation_id = ? AND status = 'active' "
            "AND (expires_at IS NULL OR expires_at > '2100') ORDER BY id",
            (conversation_id,),
        ):
            return Decision(account_id)
        return decision

    monkeypatch.setattr(mcp_dispatch, "resolve", falling_back)
    red(corpus, real_host, plugins, FALLBACK)


def test_an_authority_that_skips_the_grant_check_turns_the_grant_cases_red(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = mcp_accounts.resolve

    def no_grant_check(
        conn: sqlite3.Connection, conversation_id: str, now: datetime | None = None
    ) -> Decision:
        decision = real(conn, conversation_id, now)
        reason = decision.reason or ""
        if "grant" in reason:
            row = conn.execute(
                "SELECT account_id FROM mcp_selections WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            return Decision(row[0])
        return decision

    monkeypatch.setattr(mcp_dispatch, "resolve", no_grant_check)
    red(corpus, real_host, plugins, GRANT)


def test_counting_dispatcher_attempts_turns_the_revoked_grant_case_red(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    def attempts(provider: Any, namespace: str) -> int | None:
        del provider, namespace
        return dispatcher_attempts[-1]

    dispatcher_attempts: list[int] = [0]
    real_execute = mcp_dispatch.McpDispatcher.execute

    def counting(self: mcp_dispatch.McpDispatcher, call: Any) -> Any:
        outcome = real_execute(self, call)
        dispatcher_attempts.append(self.attempts)
        return outcome

    monkeypatch.setattr(mcp_dispatch.McpDispatcher, "execute", counting)
    monkeypatch.setattr(mcp_chat, "provider_calls", attempts)
    red(corpus, real_host, plugins, REVOKED)


def test_a_missing_provider_count_fails_even_when_zero_is_expected(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_chat, "provider_calls", lambda _provider, _namespace: None)
    red(corpus, real_host, plugins, REVOKED)
