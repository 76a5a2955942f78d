"""Services only an L3 Trial offers: durable state set up before the Turns, read back after.

Each wraps one capability of the runtime over the Trial's own database: further Turns on the
conversation, the dependency fault ports, MCP host state and the integrations' servers, the
approval desk, the native channel, and read-backs of the Runs and the Soul repository.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from agent_runtime.durable.replies import Delivery as ReplyDelivery
from agent_runtime.mcp import accounts as mcp_accounts
from agent_runtime.mcp.dispatch import McpEndpoints
from agent_runtime.model import (
    ModelFailure,
    ModelPort,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from agent_runtime.native import admission
from agent_runtime.native.accounts import AccountAuthority
from agent_runtime.native.inbox import InboxClaimRefusedError, NativeInbox
from agent_runtime.native.routes import NativeRoutes, Route
from agent_runtime.soul.doctor import Finding, Repair
from agent_runtime.store.database import Connection
from agent_runtime.tools import ToolExecutor, ToolOutcome
from eval_core.hosts import (
    Message,
    ModelCallRequest,
    ModelReply,
    ModelSession,
    ScriptedResult,
    ScriptStep,
)
from eval_core.records import (
    ActivePublication,
    Admission,
    DoctorEvent,
    ForeignFile,
    McpAccount,
    NativeEvent,
    NativeRoute,
    PersistedMessage,
    Redelivery,
    SoulCommit,
    StaleWrite,
    TurnRecord,
)
from eval_host_agent_runtime.services import REQUESTER, FileStoreService

FAULT_REASON = "model_not_configured"
Action = Callable[[], None]


class FurtherTurn(msgspec.Struct, frozen=True):
    input: Sequence[Message]
    tool_results: Sequence[ScriptedResult]
    script: Sequence[ScriptStep] | None


class TurnQueueService:
    """Further Turns on the Trial's conversation, run after the first, each a new Run."""

    __slots__ = ("turns",)

    def __init__(self) -> None:
        self.turns: list[FurtherTurn] = []

    def then(
        self,
        input: Sequence[Message],
        tool_results: Sequence[ScriptedResult],
        script: Sequence[ScriptStep] | None,
    ) -> None:
        """Queue a Turn: what the user says, what scripted Tools return, what a script says."""
        self.turns.append(FurtherTurn(input, tool_results, script))


class WorkerDiedError(Exception):
    """The chat worker's process died (the fault port's drill): it runs no more of its code, and
    what its transaction had not committed is gone."""


class DependencyFaultService:
    """The fault ports of the runtime's dependencies: its context service, its model port, and
    the process of the chat worker."""

    __slots__ = ("_armed", "_fault", "_fired", "_kill")

    def __init__(self) -> None:
        self._fault: str | None = None
        self._armed = False
        self._fired = False
        self._kill = 0  # 1: the worker dies at its second Tool call; 2: its first went through

    def fail_context(self) -> None:
        """Context resolution fails: the Run fails before the model is called."""
        self._fault = "context"

    def unconfigure_model(self) -> None:
        """The model port throws ``model_not_configured`` on every call."""
        self._fault, self._armed = "model", True

    def fail_model_after_requeue(self) -> None:
        """The model port fails once a parked Run was re-queued (after its approval)."""
        self._fault = "model_after_requeue"

    def limit_output(self) -> None:
        """Every text answer comes back cut at the output limit (finish reason ``length``), as
        the binding's reply: the Host translates it to the runtime like any model's reply."""
        self._fault = "output_limit"

    def fired(self) -> bool:
        """The injected fault took effect at least once."""
        return self._fired

    def resolve_context(self, context: Mapping[str, Any]) -> Mapping[str, Any]:
        if self._fault == "context":
            from agent_runtime.durable.executor import ContextUnresolvedError

            self._fired = True
            raise ContextUnresolvedError("the context service did not answer (fault: context)")
        return context

    def requeued(self) -> None:
        if self._fault == "model_after_requeue":
            self._armed = True

    def kill_worker(self) -> None:
        """The chat worker dies once, as it hands its second Tool call to the Tools (the first
        call's result checkpointed): the Host restarts, and a new worker takes the Run over."""
        self._kill = 1

    def worker(self, inner: ToolExecutor) -> ToolExecutor:
        """The worker's side of its executor port: where the armed worker dies."""
        return _DyingWorker(inner, self) if self._kill else inner

    def session(self, inner: ModelSession) -> ModelSession:
        """The binding's session, its replies cut when the fault says so (before the Host's
        translation, where a vendor's truncated reply enters)."""
        return _CutSession(inner, self) if self._fault == "output_limit" else inner

    def model(self, inner: ModelPort) -> ModelPort:
        faulty = self._fault is not None and self._fault != "output_limit"
        return _FaultyModel(inner, self) if faulty else inner


class _DyingWorker:
    __slots__ = ("faults", "inner")

    def __init__(self, inner: ToolExecutor, faults: DependencyFaultService) -> None:
        self.inner = inner
        self.faults = faults

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        faults = self.faults
        if faults._kill == 2 and not faults._fired:
            faults._fired = True
            raise WorkerDiedError(
                f"the worker died handing call {call.call_id} to its Tool (fault port)"
            )
        faults._kill = 2  # the first call reached its Tool: the worker dies at the next
        return self.inner.execute(call)


class _CutSession:
    """A binding's session whose every text reply comes back with finish reason ``length``;
    anything else it answers (its record of what was sent included) is the session's own."""

    __slots__ = ("faults", "inner")

    def __init__(self, inner: ModelSession, faults: DependencyFaultService) -> None:
        self.inner = inner
        self.faults = faults

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def complete(self, request: ModelCallRequest) -> ModelReply:
        reply = self.inner.complete(request)
        if reply.tool_calls:
            return reply
        self.faults._fired = True
        return msgspec.structs.replace(reply, finish_reason="length")


class _FaultyModel:
    __slots__ = ("faults", "inner")

    def __init__(self, inner: ModelPort, faults: DependencyFaultService) -> None:
        self.inner = inner
        self.faults = faults

    @property
    def model_id(self) -> str | None:
        return getattr(self.inner, "model_id", None)

    def complete(self, request: ModelRequest) -> ModelResponse:
        faults = self.faults
        if faults._armed:
            faults._fired = True
            raise ModelFailure(FAULT_REASON, "no model is configured (fault port)")
        return self.inner.complete(request)


class TrialClockService:
    """The Trial's clock as the runtime reads it: real time, moved forward when the Host lets a
    wait run out. A fixture stamps what its provider receives with it."""

    __slots__ = ("clock",)

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock

    def now(self) -> float:
        return self.clock()


class ToolProviderService:
    """Chat Tools an external provider serves over HTTP, reached with the runtime's own client
    (:class:`agent_runtime.routines.tool_providers.HttpToolProvider`, the call id as idempotency
    key).
    Its answer is translated to the executor port's outcome and nothing more: a success is the
    output, a retry it asks for parks the call for as long as it said, anything else fails."""

    __slots__ = ("urls",)

    def __init__(self) -> None:
        self.urls: dict[str, str] = {}

    def serve(self, tool: str, url: str) -> None:
        if tool in self.urls:
            raise ValueError(f"Tool {tool!r} is served twice")
        self.urls[tool] = url

    def tools(self, inner: ToolExecutor) -> ToolExecutor:
        return _Provided(self.urls, inner) if self.urls else inner


class _Provided:
    __slots__ = ("inner", "urls")

    def __init__(self, urls: Mapping[str, str], inner: ToolExecutor) -> None:
        self.urls = urls
        self.inner = inner

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        url = self.urls.get(call.name)
        if url is None:
            return self.inner.execute(call)
        from agent_runtime.routines.tool_providers import HttpToolProvider

        reply = HttpToolProvider(url).call(call.name, call.arguments, call.call_id)
        if reply.status == "success":
            return ToolOutcome("succeeded", reply.output)
        if reply.status == "retry":
            return ToolOutcome(
                "awaiting_retry", reason=reply.code, retry_after_ms=reply.retry_after_ms
            )
        return ToolOutcome("failed", reason=reply.code)


class ForeignFilesService:
    """Files other users own in the Trial's File store, shared with whom a fixture says: the
    requester holds no share of them, so the runtime's File Tools (which then run for the
    Trial) must neither read them nor list them for it."""

    __slots__ = ("files",)

    def __init__(self, files: FileStoreService) -> None:
        self.files = files

    def put_foreign(self, file: ForeignFile) -> None:
        requester = f"user:{REQUESTER}"
        if file.owner == requester or requester in file.shared_with:
            raise ValueError(
                f"{file.file_id}: a foreign File is neither owned by nor shared with {requester}"
            )
        self.files.used = True
        store = self.files.store
        store.put(
            file.file_id, file.name, file.media_type, file.data, origin="library", owner=file.owner
        )
        for grantee in file.shared_with:
            store.share(file.file_id, grantee)


class PriorAttemptService:
    """An earlier pass of the first Turn's attempt, written by the runtime's own event log under
    a lease of its own before the Trial's pass claims the Run: the text it released and the
    Tool calls it finished, then its worker went away (the State is re-queued)."""

    __slots__ = ("calls", "text")

    def __init__(self) -> None:
        self.text = ""
        self.calls: list[tuple[str, str, str]] = []

    def seed(self, text: str, tool_calls: list[tuple[str, str, str]]) -> None:
        self.text = text
        self.calls = list(tool_calls)

    def seeded(self) -> bool:
        return bool(self.text or self.calls)


class ApprovalDeskService:
    """The operator's side of approvals: what happens while an approval waits, before the
    operator grants it."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending: list[Action] = []

    def while_pending(self, action: Callable[[], None]) -> None:
        """Run ``action`` once, the next time an approval waits for its decision."""
        self.pending.append(action)

    def waiting(self) -> None:
        actions, self.pending = self.pending, []
        for action in actions:
            action()


class McpHostService:
    """MCP host state of the Trial's chat (accounts, grants, consent, selection) and which
    server serves each integration: operator configuration, never model input."""

    __slots__ = ("conn", "conversation_id", "endpoints")

    def __init__(self, conn: Connection, conversation_id: str, endpoints: McpEndpoints):
        self.conn = conn
        self.conversation_id = conversation_id
        self.endpoints = endpoints

    def connect_integration(self, integration: str, url: str) -> None:
        self.endpoints.connect(integration, url)

    def connect_chat(self, visibility: str) -> None:
        mcp_accounts.connect_chat(self.conn, self.conversation_id, visibility)

    def add_account(self, account: McpAccount) -> None:
        row = mcp_accounts.Account(
            account.account_id,
            account.scope,
            account.status,
            account.credential,
            is_default=account.is_default,
            expires_at=account.expires_at,
        )
        mcp_accounts.add_account(self.conn, self.conversation_id, row)

    def grant(self, account_id: str) -> None:
        mcp_accounts.grant(self.conn, self.conversation_id, account_id)

    def select(self, account_id: str, shared_consent: bool) -> None:
        mcp_accounts.select(self.conn, self.conversation_id, account_id, shared_consent)

    def revoke_grant(self, account_id: str) -> bool:
        return mcp_accounts.revoke_grant(self.conn, self.conversation_id, account_id)


class Delivery(msgspec.Struct):
    event_id: str
    after_claim: list[Action] = []  # a Struct copies an empty default for each instance
    during_admission: list[Action] = []
    claimed_again: bool = False


class NativeChannelService:
    """The native channel: accounts and routes as operator state, events delivered to the
    durable inbox. A Trial that delivers events runs them (claim, then admission by the
    runtime) instead of a chat Turn."""

    __slots__ = ("conn", "deliveries")

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.deliveries: list[Delivery] = []

    def set_account(self, account_id: str, status: str) -> None:
        AccountAuthority(self.conn).set_status(account_id, status)  # type: ignore[arg-type]

    def set_route(self, route: NativeRoute) -> None:
        NativeRoutes(self.conn).set(
            Route(route.destination, route.routine, route.agent, route.owner, route.bundle)
        )

    def deliver(self, event: NativeEvent) -> str:
        received = NativeInbox(self.conn).receive(
            event.channel,
            event.destination,
            event.account_id,
            event.payload,
            event_id=event.event_id,
            event_type=event.event_type,
        )
        self.deliveries.append(Delivery(received))
        return received

    def after_claim(self, event_id: str, action: Callable[[], None]) -> None:
        """Run ``action`` between the worker's claim and admission (host state moving)."""
        self._delivery(event_id).after_claim.append(action)

    def during_admission(self, event_id: str, action: Callable[[], None]) -> None:
        """Run ``action`` inside admission's transaction, right after the Run row exists."""
        self._delivery(event_id).during_admission.append(action)

    def revoke_claim(self, event_id: str) -> None:
        """The operator takes the event's claim back from its worker (the fence moves)."""
        NativeInbox(self.conn).revoke_claim(event_id)

    def claim_again(self, event_id: str) -> None:
        """Once the event was admitted, a second worker tries to claim it (a redelivery, a
        stale listing of the queue) and, when the inbox lets it, goes on to admit it."""
        self._delivery(event_id).claimed_again = True

    def admission(self, event_id: str) -> Admission:
        return _admission(self.conn, event_id)

    def _delivery(self, event_id: str) -> Delivery:
        for delivery in self.deliveries:
            if delivery.event_id == event_id:
                return delivery
        raise KeyError(f"no native event {event_id} was delivered in this Trial")

    def run(self) -> None:
        """The worker: claim each delivered event and let the runtime admit it."""
        inbox = NativeInbox(self.conn)
        for delivery in self.deliveries:
            claim = inbox.claim(delivery.event_id, owner="worker-a")
            for action in delivery.after_claim:
                action()
            hooks = delivery.during_admission

            def during(_conn: Connection, hooks: Sequence[Action] = hooks) -> None:
                for hook in hooks:
                    hook()

            admission.admit(self.conn, claim, on_run_inserted=during if hooks else None)
        for delivery in self.deliveries:
            if not delivery.claimed_again:
                continue
            try:
                again = inbox.claim(delivery.event_id, owner="worker-b")
            except InboxClaimRefusedError:
                continue  # the inbox held the admitted event: nothing more to do
            admission.admit(self.conn, again)


def _count(conn: Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _admission(conn: Connection, event_id: str) -> Admission:
    event = NativeInbox(conn).get(event_id)
    invocation = conn.execute(
        "SELECT run_id, state_id, account_id FROM routine_invocations WHERE inbox_id = ?",
        (event_id,),
    ).fetchone()
    run_id = invocation[0] if invocation is not None else None
    columns = "id, status, source, identity, bundle"
    run_row = (
        conn.execute(f"SELECT {columns} FROM runs WHERE id = ?", (run_id,)).fetchone()
        if run_id is not None
        else conn.execute(
            f"SELECT {columns} FROM runs WHERE source = ? ORDER BY id LIMIT 1",
            (admission.SOURCE,),
        ).fetchone()
    )
    run = (
        None
        if run_row is None
        else {
            "id": run_row[0],
            "status": run_row[1],
            "source": run_row[2],
            "identity": None if run_row[3] is None else json.loads(run_row[3]),
        }
        | ({} if run_row[4] is None else {"bundle": json.loads(run_row[4])})
    )
    state = request = None
    if run is not None:
        state = conn.execute("SELECT status FROM states WHERE run_id = ?", (run["id"],)).fetchone()
        request = conn.execute(
            "SELECT content FROM request_artifacts WHERE run_id = ? AND kind = 'request'",
            (run["id"],),
        ).fetchone()
    inbox_run = event.run_id if event is not None else None
    return Admission(
        run_count=_count(conn, "runs"),
        state_count=_count(conn, "states"),
        artifact_count=_count(conn, "request_artifacts"),
        invocation_count=_count(conn, "routine_invocations"),
        run=run,
        state_status=None if state is None else state[0],
        request=None if request is None else json.loads(request[0]),
        account_id=(
            invocation[2]
            if invocation is not None
            else (None if event is None else event.resolved_account)
        ),
        inbox_run_id=inbox_run,
        inbox_correlated=inbox_run is not None and run is not None and inbox_run == run["id"],
        error=None if event is None else event.error_code,
        inbox_status=None if event is None else event.status,
        error_message=None if event is None else event.error_message,
    )


_RUN_ROWS: Mapping[str, str] = {
    "runs": "SELECT * FROM runs WHERE id = ?",
    "states": "SELECT * FROM states WHERE run_id = ?",
    "turns": "SELECT * FROM turns WHERE run_id = ?",
    "run_events": "SELECT * FROM run_events WHERE run_id = ?",
    "messages": "SELECT * FROM messages WHERE run_id = ?",
    "approvals": "SELECT * FROM approvals WHERE run_id = ?",
    "retry_waits": "SELECT * FROM retry_waits WHERE run_id = ?",
    "checkpoints": "SELECT c.* FROM checkpoints c JOIN states s ON s.id = c.state_id "
    "WHERE s.run_id = ?",
    "tool_effects": "SELECT e.* FROM tool_effects e JOIN states s ON s.id = e.state_id "
    "WHERE s.run_id = ?",
}
RunRows = dict[str, frozenset[tuple[str, ...]]]


def run_rows(conn: Connection, run_id: str) -> RunRows:
    """Every row of the Run as the database holds it, table by table (values as text)."""
    return {
        table: frozenset(
            tuple(repr(value) for value in row) for row in conn.execute(sql, (run_id,)).fetchall()
        )
        for table, sql in _RUN_ROWS.items()
    }


def rows_landed(before: RunRows, after: RunRows) -> list[str]:
    """What changed between two reads of a Run's rows: a line per row that now reads as it did
    not before (written, or an older row rewritten), and per table the rows gone."""
    lines: list[str] = []
    for table in _RUN_ROWS:
        old, new = before.get(table, frozenset()), after.get(table, frozenset())
        lines.extend(f"{table}: {', '.join(row)[:160]}" for row in sorted(new - old))
        gone = len(old) - len(old & new) - len(new - old)
        if gone > 0:
            lines.append(f"{table}: {gone} row(s) deleted")
    return lines


class RunLedgerService:
    """The Trial's Runs read back from the database, Turn by Turn, and the Host restarts they
    were picked up after."""

    __slots__ = ("message_rows", "restart_count", "stale", "turn_rows")

    def __init__(self) -> None:
        self.turn_rows: list[TurnRecord] = []
        self.message_rows: list[PersistedMessage] = []
        self.stale: list[StaleWrite] = []
        self.restart_count = 0

    def restarts(self) -> int:
        """How often the Host's process restarted mid-Trial (each a new database session)."""
        return self.restart_count

    def turns(self) -> list[TurnRecord]:
        return list(self.turn_rows)

    def messages(self) -> list[PersistedMessage]:
        return list(self.message_rows)

    def stale_writes(self) -> list[StaleWrite]:
        """Every return of a worker holding a stale lease, and whether the store refused it."""
        return list(self.stale)


class SoulHistoryService:
    """The Eval Soul repository and its publications, read back after each Turn."""

    __slots__ = ("commit_rows", "publication_rows")

    def __init__(self) -> None:
        self.commit_rows: list[SoulCommit] = []
        self.publication_rows: list[ActivePublication] = []

    def commits(self) -> list[SoulCommit]:
        return list(self.commit_rows)

    def publications(self) -> list[ActivePublication]:
        return list(self.publication_rows)


class ReplyChannelService:
    """The integration the Trial's chat arrived through: each Turn's answer is delivered back
    through the channel a fixture provides (the integration's provider), and the runtime
    settles the Run by what that channel answers; the redeliveries it stored are read back
    from the database."""

    __slots__ = ("channel", "conn")

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.channel: Callable[[str], Any] | None = None

    def route_replies(self, deliver: Callable[[str], Any]) -> None:
        """``deliver(text)`` answers with ``delivered``, ``outcome`` and ``code``."""
        self.channel = deliver

    def deliver(self, conversation_id: str, run_id: str, text: str) -> ReplyDelivery:
        """The runtime's reply channel port, over the fixture's channel."""
        assert self.channel is not None
        answer = self.channel(text)
        return ReplyDelivery(bool(answer.delivered), answer.outcome, answer.code)

    def redeliveries(self) -> list[Redelivery]:
        """Every redelivery wait the database holds, in the order stored."""
        rows = self.conn.execute(
            "SELECT run_id, status, code FROM retry_waits WHERE kind = 'delivery' "
            "ORDER BY due_at, id"
        ).fetchall()
        return [Redelivery(str(run), str(status), code) for run, status, code in rows]


class SoulDoctorService:
    """The Soul doctor, run after each Turn: a fixture provides its repair source (what a model
    would propose) and reads back what the doctor did: its own record (``doctor_events``) and
    the commits its passes added to the Soul repository (the repository's log, a witness)."""

    __slots__ = ("commit_rows", "operator", "proposer", "rows")

    def __init__(self) -> None:
        self.proposer: Callable[[str, str], Any] | None = None
        self.operator: Callable[[str, str], None] | None = None
        """Writes a Routine's content as an operator would (set by the durable tier)."""
        self.rows: list[DoctorEvent] = []
        self.commit_rows: list[SoulCommit] = []

    def after_each_turn(self, propose: Callable[[str, str], Any]) -> None:
        """Run the doctor after each Turn; ``propose(subject, problem)`` answers a repair with
        ``slug``, ``content`` and ``summary``, or ``None``."""
        self.proposer = propose

    def propose(self, finding: Finding) -> Repair | None:
        """The runtime's repair source port, over the fixture's proposer."""
        assert self.proposer is not None
        made = self.proposer(finding.subject, finding.problem)
        if made is None:
            return None
        concurrent = getattr(made, "concurrent_content", None)
        if concurrent is not None and self.operator is not None:
            self.operator(made.slug, concurrent)  # an operator's edit lands before the repair
        return Repair(made.slug, made.content, made.summary)

    def events(self) -> list[DoctorEvent]:
        return list(self.rows)

    def doctor_commits(self) -> list[SoulCommit]:
        """The commits the doctor's passes made, as the Soul repository's log holds them."""
        return list(self.commit_rows)
