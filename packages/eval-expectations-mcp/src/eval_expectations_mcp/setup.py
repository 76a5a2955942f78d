"""The mcp family's fixture: its provider serves the Eval Soul's integration, the Case's ``mcp``
block becomes the chat's host state, and the provider's own count is read back.

The provider (:mod:`eval_expectations_mcp.provider`) starts once per Sweep as a subprocess on a
free port of 127.0.0.1. Each Trial opens a sandbox of its own on it, giving every declared
account a fresh credential there (as a vendor's sandbox tenant would): what the Trial's calls
write (note ids included) starts empty however many Trials the provider served before, its
``tools/call`` count is the provider's count for its own credentials, never another Trial's,
and the sandbox is closed when the Trial ends.
The Case's ``answers`` tell the sandbox how to answer (several text parts, an HTTP error, an
oversized stream); ``unreachable`` instead points the integrations at a port where nothing
listens (the server is down). The Host is told which server serves the integration (and each
further one the Case's ``operatorEndpoints`` names), the chat's visibility, accounts, grants,
selection and consent; a grant the Case revokes is revoked while the approval waits, and a
``reselect`` selects another account while the approval it names waits. Grants, revocations and
the approval desk are services of their own, asked for only by a Case that uses them: a Host
without them (a graph that acts for one account and parks nothing) is asked at load
(:func:`host_problems`), and the Case is refused there, never at run.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import quote

import msgspec

from eval_core.kinds import FixtureRequest, LoadContext, Tier, TrialFixture
from eval_core.records import McpAccount
from eval_expectations_mcp.fixture import McpAnswers, McpFixture

INTEGRATION = "eval-mcp"
START_TIMEOUT = 30.0
READ_TIMEOUT = 5.0
ADMIN_ANSWER = 1 << 20  # bytes of an admin route's answer
DOWN = "http://127.0.0.1:9/mcp"  # the discard port: nothing listens, every connection refused


class McpHost(Protocol):
    """The Host's MCP host state for the Trial's chat, and where each integration is served."""

    def connect_integration(self, integration: str, url: str) -> None: ...

    def connect_chat(self, visibility: str) -> None: ...

    def add_account(self, account: McpAccount) -> None: ...

    def select(self, account_id: str, shared_consent: bool) -> None: ...


class McpAccountAuthority(Protocol):
    """The Host's authority over the chat's accounts: it grants shared accounts, revokes grants,
    and refuses an account that is not active. Without it a Host acts for one account."""

    def grant(self, account_id: str) -> None: ...

    def revoke_grant(self, account_id: str) -> bool: ...


class ApprovalDesk(Protocol):
    """The operator's side of the Host's approvals."""

    def while_pending(self, action: Callable[[], None]) -> None: ...


class McpRecord(msgspec.Struct, frozen=True, kw_only=True):
    """``provider_calls``: the provider's own count of ``tools/call`` requests for this Trial's
    credentials, ``None`` when it could not be asked (not observed is never zero);
    ``provider_refusals``: of those, the ones it answered ``isError``, observed the same way."""

    provider_calls: int | None
    revoked_grants: list[str] = msgspec.field(default_factory=list)
    provider_refusals: int | None = None


class ProviderUnavailable(Exception):  # noqa: N818 - it names a state
    """The provider did not start, or stopped answering."""


@dataclass(slots=True)
class Provider:
    """The provider subprocess, restarted when it died between Trials. ``options`` are its
    command-line options (``--json-response``: answers as JSON bodies, not SSE streams)."""

    process: subprocess.Popen[str] | None = None
    url: str = ""
    options: tuple[str, ...] = ()
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ensure(self) -> None:
        with self.lock:
            if not self.alive():
                self.stop()
                self._start()

    def _start(self) -> None:
        process = subprocess.Popen(
            [sys.executable, "-m", "eval_expectations_mcp.provider", *self.options],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.PIPE,  # never written: it closes when the Sweep dies, however
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        line: list[str] = []
        reader = threading.Thread(
            target=lambda: line.append(process.stdout.readline() if process.stdout else "")
        )
        reader.start()
        reader.join(START_TIMEOUT)
        ready = line[0].split() if line else []
        if len(ready) != 2 or ready[0] != "READY":
            process.kill()
            raise ProviderUnavailable(f"the MCP provider did not start within {START_TIMEOUT:g}s")
        self.process, self.url = process, ready[1]

    def _admin(self, method: str, route: str, body: bytes | None = None) -> bytes:
        """One request to the provider's loopback admin routes (plain HTTP on a connection of
        its own, no proxy): the answer's body, or :class:`ProviderUnavailable`."""
        import http.client
        from urllib.parse import urlsplit

        where = urlsplit(self.base)
        conn = http.client.HTTPConnection(where.hostname or "", where.port, timeout=READ_TIMEOUT)
        try:
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, route, body=body, headers=headers)
            answer = conn.getresponse()
            data = answer.read(ADMIN_ANSWER + 1)
        except (OSError, http.client.HTTPException) as error:
            raise ProviderUnavailable(f"{error or type(error).__name__}") from error
        finally:
            conn.close()
        if answer.status != 200 or len(data) > ADMIN_ANSWER:
            raise ProviderUnavailable(f"HTTP {answer.status} {answer.reason}")
        return data

    def open_sandbox(self, sandbox: str, credentials: dict[str, str]) -> None:
        """A fresh sandbox ``sandbox`` whose accounts are the ``{credential: accountId}``
        pairs: the state one Trial's calls leave never reaches the next one's."""
        body = json.dumps(credentials).encode()
        try:
            self._admin("PUT", f"/eval/sandboxes/{quote(sandbox, safe='')}", body)
        except ProviderUnavailable as error:
            raise ProviderUnavailable(f"the MCP provider refused the accounts: {error}") from error

    def set_answers(self, sandbox: str, answers: McpAnswers) -> None:
        """How the sandbox's ``tools/call`` requests are answered (the Case's ``answers``)."""
        body = msgspec.json.encode(answers)
        try:
            self._admin("PUT", f"/eval/sandboxes/{quote(sandbox, safe='')}/answers", body)
        except ProviderUnavailable as error:
            raise ProviderUnavailable(f"the MCP provider refused the answers: {error}") from error

    def close_sandbox(self, sandbox: str) -> None:
        """Forget the sandbox (its counts were read); a provider that died kept nothing."""
        with contextlib.suppress(ProviderUnavailable):
            self._admin("DELETE", f"/eval/sandboxes/{quote(sandbox, safe='')}")

    def calls(self, credentials: list[str]) -> int | None:
        """The provider's own count for these credentials; ``None`` when it cannot be asked."""
        return self._count(credentials, "toolsCall")

    def refusals(self, credentials: list[str]) -> int | None:
        """How many of those calls the provider answered ``isError``; ``None`` when it cannot
        be asked."""
        return self._count(credentials, "refused")

    def _count(self, credentials: list[str], counter: str) -> int | None:
        from urllib.parse import urlencode

        query = urlencode([("credential", c) for c in credentials])
        try:
            count = json.loads(self._admin("GET", f"/eval/calls?{query}")).get(counter)
        except (ProviderUnavailable, ValueError, AttributeError):
            return None
        return count if isinstance(count, int) and not isinstance(count, bool) else None

    def stop(self) -> None:
        """Kill the provider: it keeps nothing worth a graceful shutdown (its counters were
        read by each Trial), and a terminated uvicorn polls open streams for up to ~0.5 s."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            if self.process.stdin is not None:
                self.process.stdin.close()
        self.process = None


def provider() -> Iterator[Provider]:
    """The Sweep's provider (a shared fixture resource, warmed at the Sweep's start): started
    once, stopped last. One that does not start is tried again by the Trial that needs it."""
    found = Provider()
    with contextlib.suppress(ProviderUnavailable):
        found.ensure()
    try:
        yield found
    finally:
        found.stop()


def host_problems(
    fixture: McpFixture, context: LoadContext, tier: Tier
) -> Iterator[tuple[str, str]]:
    """What the fixture asks of a Host that offers its MCP host state but not the account
    authority or the approval desk it also needs, refused at load."""
    if not context.offers(McpHost, tier):
        return  # refused by the core: the fixture needs McpHost
    host = f"Host {context.host.name!r}"
    authority = context.offers(McpAccountAuthority, tier)
    desk = context.offers(ApprovalDesk, tier)
    lacks = f"(it offers no {McpAccountAuthority.__name__} service)"
    no_desk = f"(it offers no {ApprovalDesk.__name__} service)"
    if fixture.shared_grants and not authority:
        yield "$.mcp.sharedGrants", f"{host} has no account authority to grant accounts in {lacks}"
    revoke = "$.mcp.revokeGrantBeforeApproval"
    if fixture.revoke_grant_before_approval is not None:
        if not authority:
            yield revoke, f"{host} has no account authority to revoke a grant in {lacks}"
        if not desk:
            yield revoke, f"{host} has no approvals to revoke during {no_desk}"
    if fixture.reselect is not None and not desk:
        yield (
            "$.mcp.reselect",
            f"{host} has no approvals to select another account during {no_desk}",
        )
    if authority:
        return
    for index, account in enumerate(fixture.accounts):
        if account.status != "active":
            yield (
                f"$.mcp.accounts[{index}].status",
                f"{host} has no account authority to refuse a {account.status} account {lacks}",
            )
    chosen = fixture.selection is not None or any(a.is_default for a in fixture.accounts)
    if len(fixture.accounts) > 1 and not chosen:
        yield "$.mcp.accounts", f"{host} acts for one account: select one or mark a default"


def _mcp(request: FixtureRequest) -> Iterator[None]:
    fixture: McpFixture = request.value
    host = request.service(McpHost)
    revoke = fixture.revoke_grant_before_approval
    reselect = fixture.reselect
    authority = (
        request.service(McpAccountAuthority)
        if fixture.shared_grants or revoke is not None
        else None
    )
    desk = request.service(ApprovalDesk) if revoke is not None or reselect is not None else None
    server = request.shared(provider)
    credentials = {a.id: f"cred_{secrets.token_hex(12)}" for a in fixture.accounts}
    sandbox = f"trial-{secrets.token_hex(12)}"  # this Trial's own state on the shared provider
    down = fixture.answers is not None and fixture.answers.fault == "unreachable"
    try:
        server.ensure()
        server.open_sandbox(
            sandbox, {credential: account for account, credential in credentials.items()}
        )
        if fixture.answers is not None and not down:
            server.set_answers(sandbox, fixture.answers)
        reachable = True
    except ProviderUnavailable:
        reachable = False  # the Trial runs; its calls fail and the count is not observed
    try:
        for integration in (INTEGRATION, *fixture.operator_endpoints):
            host.connect_integration(integration, DOWN if down else server.url or DOWN)
        host.connect_chat(fixture.visibility)
        for account in fixture.accounts:
            host.add_account(
                McpAccount(
                    account_id=account.id,
                    scope=account.scope,
                    status=account.status,
                    credential=credentials[account.id],
                    is_default=account.is_default,
                    expires_at=account.expires_at,
                )
            )
        for account_id in fixture.shared_grants:
            assert authority is not None
            authority.grant(account_id)
        if fixture.selection is not None:
            host.select(fixture.selection.account_id, fixture.selection.shared_consent)
        revoked: list[str] = []
        if revoke is not None:
            assert authority is not None and desk is not None

            def revoke_now() -> None:
                if authority.revoke_grant(revoke):
                    revoked.append(revoke)

            desk.while_pending(revoke_now)
        if reselect is not None:
            assert desk is not None

            def select_now() -> None:
                host.select(reselect.account_id, reselect.shared_consent)

            _at_approval(desk, reselect.at_approval, select_now)
        yield
        held = list(credentials.values())
        calls = server.calls(held) if reachable else None
        refusals = server.refusals(held) if reachable else None
        request.record(
            McpRecord(provider_calls=calls, revoked_grants=revoked, provider_refusals=refusals)
        )
    finally:
        if reachable:
            server.close_sandbox(sandbox)


def _at_approval(desk: ApprovalDesk, approval: int, action: Callable[[], None]) -> None:
    """Run ``action`` while the ``approval``-th approval from now waits (1: the next one)."""
    if approval <= 1:
        desk.while_pending(action)
    else:
        desk.while_pending(lambda: _at_approval(desk, approval - 1, action))


FIXTURE = TrialFixture(name="mcp-provider", field="mcp", run=_mcp, needs=(McpHost,), warm=provider)
