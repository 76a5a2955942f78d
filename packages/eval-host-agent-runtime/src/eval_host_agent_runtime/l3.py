"""An L3 Trial: each Turn a durable Run, minted, claimed, executed, settled, then read back.

The Trial gets a fresh copy of a migrated template database (SQLite in memory, or a database
cloned on a PostgreSQL server), discarded when it closes. Each Turn is a Run the real
durable executor runs under a lease; approvals park it ``waiting``, the operator grants them and
re-queues it, and the worker that parked it comes back late holding its stale lease, which the
store must refuse. A call whose provider asked to be retried parks the Run in a retry wait: the
Host restarts (a new connection to the database, nothing kept in memory), lets the Trial's clock
run to the wait's due time, and the runtime's own timer sweep re-queues it. A worker the fault
port kills mid-Turn is followed by a restart and, once its lease ran out, a new worker that
resumes the Run from its latest committed checkpoint. ``soul_write``
commits to a real git copy of the Eval Soul. Everything scored is read back from the database
and the Soul repository, never from the loop's memory; the Tool calls are what the Tools behind
the executor port received, in every worker pass (a stale worker's included).
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_runtime.durable import retry_waits
from agent_runtime.durable.executor import (
    EventLog,
    TurnRequest,
    execute_pass,
    start_turn,
)
from agent_runtime.durable.replies import deliver_reply
from agent_runtime.durable.runs import LEASE_SECONDS, Lease, Minted, RunStore, StaleGenerationError
from agent_runtime.files.attachments import AttachmentGate
from agent_runtime.files.store import SqlFileStore
from agent_runtime.guards.guardrails import GuardrailConfig, GuardrailConfigError
from agent_runtime.mcp.client import McpClients
from agent_runtime.mcp.dispatch import McpDispatcher, McpEndpoints, reviewed
from agent_runtime.model import ModelRequest, ModelResponse, ToolCallRequest, ToolSpec
from agent_runtime.routines.definitions import RoutineError
from agent_runtime.routines.definitions import parse as parse_definition
from agent_runtime.routines.runs import (
    RoutineRequest,
    ToolContract,
    WorkerCrashedError,
    run_routine,
    run_status,
    start_routine,
    states,
)
from agent_runtime.routines.tool_providers import HttpToolProvider
from agent_runtime.soul.doctor import Publishing, recorded, run_doctor
from agent_runtime.soul.loader import Soul
from agent_runtime.soul.publications import active_bundle, publish
from agent_runtime.soul.repo import (
    Commit,
    Publication,
    SoulRepo,
    SoulWriter,
    artifacts_of,
    load_bundle,
)
from agent_runtime.store.storage import StoreTemplate, atomic, open_template
from agent_runtime.tools import ToolExecutor, ToolOutcome
from agent_runtime.turn.events import canonical_digest, preview, result_payload
from agent_runtime.turn.result import ITERATION_LIMIT, REPAIR_BUDGET_EXHAUSTED, TOOL_CALL_LIMIT
from eval_core.hosts import CaseBase, Event, Evidence, ModelSession, Testimony, TurnScripted
from eval_core.hosts import Usage as EvalUsage
from eval_core.records import (
    ActivePublication,
    DoctorEvent,
    PersistedMessage,
    RoutineOutcome,
    SoulCommit,
    StaleWrite,
    TurnRecord,
    folded,
)
from eval_host_agent_runtime.durable_services import (
    ApprovalDeskService,
    DependencyFaultService,
    ForeignFilesService,
    McpHostService,
    NativeChannelService,
    PriorAttemptService,
    ReplyChannelService,
    RunLedgerService,
    SoulDoctorService,
    SoulHistoryService,
    ToolProviderService,
    TrialClockService,
    TurnQueueService,
    WorkerDiedError,
    rows_landed,
    run_rows,
)
from eval_host_agent_runtime.events import Decisions
from eval_host_agent_runtime.ports import (
    ModelPort,
    ScriptedExecutor,
    ToolWitness,
    messages,
    tools_of,
)
from eval_host_agent_runtime.routine_desk import RoutineDeskService
from eval_host_agent_runtime.scratch import scratch_dir
from eval_host_agent_runtime.services import (
    EventStreamService,
    FileStoreService,
    ToolRegistryService,
    executor_chain,
)

SOUL_WRITE = "soul_write"
MAX_PARKS_PER_TURN = 16
SERVICES: tuple[type, ...] = (
    FileStoreService,
    EventStreamService,
    ToolRegistryService,
    TurnQueueService,
    DependencyFaultService,
    PriorAttemptService,
    ApprovalDeskService,
    McpHostService,
    NativeChannelService,
    RunLedgerService,
    SoulHistoryService,
    RoutineDeskService,
    ReplyChannelService,
    SoulDoctorService,
    TrialClockService,
    ToolProviderService,
    ForeignFilesService,
)


class HostError(Exception):
    """The L3 Host could not run the Case as written (a harness fault: the Trial errors)."""


class DurableTier:
    """The L3 tier of one Host load: a migrated template, a git copy of the Soul, the
    integrations' endpoints.

    ``repo`` is never written: a Trial that writes the Soul borrows a copy of it of its own
    (:meth:`lend`), reset when the Trial closes and lent again, so that Trials running at once
    write at once instead of queueing for one repository (at most ``--jobs`` copies are made).
    """

    __slots__ = (
        "base_artifacts",
        "base_bundle",
        "copying",
        "endpoints",
        "idle",
        "lending",
        "made",
        "repo",
        "template",
        "workdir",
    )

    def __init__(self, soul_dir: Path, store: str | None = None) -> None:
        self.template: StoreTemplate = open_template(store)
        self.workdir = scratch_dir("eval-l3-")
        try:
            self.repo = SoulRepo(soul_dir, self.workdir)
            self.base_bundle = self.repo.bundle(self.repo.base)
            self.base_artifacts = artifacts_of(load_bundle(self.base_bundle))
        except BaseException:
            self.close()
            raise
        self.endpoints = McpEndpoints()
        self.copying = threading.Lock()  # the template is copied one Trial at a time
        self.lending = threading.Lock()
        self.idle: list[SoulRepo] = []
        self.made = 0

    def fresh(self) -> Any:
        with self.copying:
            return self.template.fresh()

    def lend(self) -> SoulRepo:
        """A copy of the Soul repository at its base for one Trial's writes, its own."""
        with self.lending:
            if self.idle:
                return self.idle.pop()
            self.made += 1
            made = self.made
        return self.repo.copy(self.workdir / f"writer-{made}")

    def give_back(self, repo: SoulRepo) -> None:
        """``repo`` back once the Trial is done: reset to its base first (when that fails,
        the copy is dropped, never lent again)."""
        if repo.changed():
            repo.reset()
        with self.lending:
            self.idle.append(repo)

    def close(self) -> None:
        self.template.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


class TrialClock:
    """The Trial's clock: real time, moved forward when the Host lets a wait run out (nobody
    sleeps through a retry's backoff)."""

    __slots__ = ("offset",)

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance_to(self, when: float) -> None:
        self.offset += max(0.0, when - self()) + 0.001


class TrialConnection:
    """The Trial's database connection as everything in the Trial holds it; a restart of the
    Host swaps the session it speaks through."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @property
    def dialect(self) -> Any:
        return self.inner.dialect

    @property
    def in_transaction(self) -> bool:
        return bool(self.inner.in_transaction)

    @property
    def transaction(self) -> object | None:
        return self.inner.transaction  # type: ignore[no-any-return]

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Any:
        return self.inner.execute(sql, parameters)

    def close(self) -> None:
        self.inner.close()


class StaleWorker:
    """The model port of the worker that parked a Run and comes back after its lease was
    taken: never the Trial's model (what it would say is not what is measured; its writes are)."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        return ModelResponse(text="A worker that lost its lease answers late.")


class _DurableTools:
    """Stateful Tools run for real (``soul_write``, published ``mcp_*``); then ``inner``."""

    __slots__ = ("dispatcher", "inner", "writer")

    def __init__(
        self, inner: ToolExecutor, writer: SoulWriter | None, dispatcher: McpDispatcher | None
    ) -> None:
        self.inner = inner
        self.writer = writer
        self.dispatcher = dispatcher

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        if call.name == SOUL_WRITE and self.writer is not None:
            return self.writer.execute(call)
        if self.dispatcher is not None and self.dispatcher.handles(call.name):
            return self.dispatcher.execute(call)
        return self.inner.execute(call)


class L3Trial:
    """One L3 Trial; fixtures set it up through :meth:`services` before :meth:`run`."""

    def __init__(self, tier: DurableTier, case: CaseBase, session: ModelSession) -> None:
        self.tier = tier
        self.case = case
        self.session = session
        self.clock = TrialClock()
        self.conn: Any = TrialConnection(tier.fresh())
        self.store = RunStore(self.conn, self.clock)
        self.restarts = 0
        self.conversation = self.store.start_conversation(case.agent)
        publish(self.conn, tier.repo.base, str(tier.base_bundle), tier.base_artifacts, None)
        self.files = FileStoreService(SqlFileStore(self.conn), case.agent)
        self.events = EventStreamService()
        self.registry = ToolRegistryService()
        self.turns = TurnQueueService()
        self.faults = DependencyFaultService()
        self.prior = PriorAttemptService()
        self.approvals = ApprovalDeskService()
        self.mcp = McpHostService(self.conn, self.conversation, tier.endpoints)
        self.native = NativeChannelService(self.conn)
        self.ledger = RunLedgerService()
        self.history = SoulHistoryService()
        self.desk = RoutineDeskService()
        self.replies = ReplyChannelService(self.conn)
        self.doctor = SoulDoctorService()
        self.operator_commits: set[str] = set()
        """Commits the fixture made as an operator (not the runtime's, not in its record)."""
        self.clock_service = TrialClockService(self.clock)
        self.providers = ToolProviderService()
        self.foreign = ForeignFilesService(self.files)
        self.clients: McpClients | None = None
        self.head = tier.repo.base
        # a hand-declared soul_write is routed to the real writer by name, as in the original
        self.writes_soul = SOUL_WRITE in case.platform_tools or any(
            t.name == SOUL_WRITE for t in case.tools
        )
        self.repo = tier.lend() if self.writes_soul else tier.repo  # given back by close()
        self.model: Any = None
        self.recorded: list[Event] = []
        self.witness = ToolWitness()
        self.seeded: set[str] = set()  # call ids of the earlier pass the Host wrote itself
        self.lost_passes = 0  # worker passes that died: what they did after a commit is gone
        self.usage = EvalUsage()
        self.system_prompt: str | None = None

    def services(self) -> tuple[object, ...]:
        return (
            self.files,
            self.events,
            self.registry,
            self.turns,
            self.faults,
            self.prior,
            self.approvals,
            self.mcp,
            self.native,
            self.ledger,
            self.history,
            self.desk,
            self.replies,
            self.doctor,
            self.clock_service,
            self.providers,
            self.foreign,
        )

    def close(self) -> None:
        if self.clients is not None:
            self.clients.close()
        self.tier.template.release(self.conn.inner)
        if self.writes_soul:
            self.tier.give_back(self.repo)

    # -- the run ------------------------------------------------------------------------------

    def run(self) -> Evidence:
        if self.native.deliveries:  # the Trial's work is the channel's: no chat Turn
            self.native.run()
            return Evidence(tier=self.case.tier)
        if self.desk.job is not None:  # the operator's Routine runs instead of a chat Turn
            self._run_scheduled()
            return self._evidence()
        if self.doctor.proposer is not None and not self.writes_soul:
            self.repo = self.tier.lend()  # the doctor commits: to a copy of its own
            self.writes_soul = True
        self.model = self.faults.model(ModelPort(self.faults.session(self.session)))
        self._turn(1, self.case.input, self.case.tool_results)
        for index, further in enumerate(self.turns.turns, start=2):
            if isinstance(self.session, TurnScripted):
                self.session.begin_turn(further.script)
            self._turn(index, further.input, further.tool_results or self.case.tool_results)
        return self._evidence()

    @property
    def mcp_connected(self) -> bool:
        return bool(
            self.conn.execute(
                "SELECT 1 FROM mcp_chats WHERE conversation_id = ?", (self.conversation,)
            ).fetchone()
        )

    def _request(self, index: int, scripted: ScriptedExecutor, model: Any) -> TurnRequest:
        store, case = self.store, self.case
        mcp = self.mcp_connected

        def load() -> Soul:
            bundle = active_bundle(store.conn)
            if bundle is None:
                raise HostError("no active Soul publication")
            return load_bundle(bundle)

        def executor(soul: Soul, lease: Lease) -> ToolExecutor:
            writer = None
            if self.writes_soul:

                def published(_commit: Commit, pub: Publication | None, _why: str | None) -> None:
                    if pub is not None:
                        publish(
                            store.conn, pub.commit, str(pub.bundle), pub.artifacts, lease.run_id
                        )

                writer = SoulWriter(self.repo, case.agent, published)
            dispatcher = None
            if mcp:
                if self.clients is None:
                    self.clients = McpClients()
                dispatcher = McpDispatcher(
                    store.conn,
                    self.conversation,
                    soul.integrations,
                    self.tier.endpoints,
                    self.clients,
                )
            inner = executor_chain(
                scripted, self.providers.tools, self.registry.tools, self.files.tools
            )
            tools = self.witness.around(_DurableTools(inner, writer, dispatcher))
            return self.faults.worker(tools)  # where a worker the fault port kills dies

        tools: list[ToolSpec] = tools_of(case)
        bundle = active_bundle(store.conn)
        if mcp and bundle is not None:
            tools = reviewed(tools, load_bundle(bundle).integrations)
        return TurnRequest(
            conversation_id=self.conversation,
            agent=case.agent,
            turn_index=index,
            load_soul=load,
            resolve_context=lambda: self.faults.resolve_context(case.context or {}),
            tools=tools,
            model=model,
            executor=executor,
            approval=lambda _call: "park",
            attachments=AttachmentGate(self.files.store) if self.files.used else None,
            subscriber=self.events,
        )

    def _turn(self, index: int, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        self.witness.turn_index = index
        minted = start_turn(self.store, self.conversation, index, messages(inputs))
        scripted = ScriptedExecutor(list(results))  # the Tools' providers outlive a restart
        request = self._request(index, scripted, self.model)
        if index == 1 and self.prior.seeded():
            self._prior_attempt(minted)
        lease = self.store.claim(minted, owner=f"worker-{index}")
        result, lease = self._execute(index, minted, scripted, lease, request)
        parks = 0
        while self.store.statuses(minted)[1] == "waiting":
            parks += 1
            if parks > MAX_PARKS_PER_TURN:
                break  # it parks without end: the Run stays waiting, read back as it is
            due = retry_waits.next_due(self.conn, minted.run_id)
            if due is not None:  # a provider asked to be retried: the wait must survive
                self._restart()
                if minted.state_id not in self._wake(due):
                    break  # the restarted runtime lost the wait: the Run stays waiting
                request = self._request(index, scripted, self.model)
                lease = self.store.claim(minted, owner=f"worker-{index}.{parks}")
            else:
                store = self.store
                self.approvals.waiting()
                pending = store.pending_approvals(minted.state_id)
                if not pending:
                    break  # waiting on nothing the operator can grant: it stays waiting
                for approval_id in pending:
                    store.grant(approval_id)
                store.requeue(minted)
                stale, lease = lease, store.claim(minted, owner=f"worker-{index}.{parks}")
                self._stale(index, stale, results)
                self.faults.requeued()
            result, lease = self._execute(index, minted, scripted, lease, request, resume=True)
        if result is not None:
            self.usage = self.usage.plus(result.usage)
            self.system_prompt = result.system_prompt
        if self.replies.channel is not None:  # the chat came through an integration
            deliver_reply(self.store, minted.run_id, self.replies)
        if self.doctor.proposer is not None:  # the repair pass that follows a Turn
            self._doctor(index, minted.run_id)
        self._read_back(index, minted)

    def _execute(
        self,
        index: int,
        minted: Minted,
        scripted: ScriptedExecutor,
        lease: Lease,
        request: TurnRequest,
        *,
        resume: bool = False,
    ) -> tuple[Any, Lease]:
        """One worker's pass. A worker that dies in it (the fault port) is followed by a restart
        of the Host and, once its lease has run out, a new worker that resumes the Run from the
        State's latest checkpoint (or runs the Turn afresh when none was committed)."""
        try:
            return execute_pass(self.store, lease, request, resume=resume), lease
        except WorkerDiedError:
            self.lost_passes += 1
            self._restart()
            self.clock.advance_to(self.clock() + LEASE_SECONDS)  # the dead worker's lease
            lease = self.store.claim(minted, owner=f"{lease.owner}.replaced")
            request = self._request(index, scripted, self.model)
            resume = self.store.latest_checkpoint(minted.state_id) is not None
            return execute_pass(self.store, lease, request, resume=resume), lease

    def _prior_attempt(self, minted: Minted) -> None:
        """The earlier pass: its events, in the runtime's own form, then its worker is gone."""
        store, prior = self.store, self.prior
        lease = store.claim(minted, owner="worker-1.prior")
        log = EventLog(store, lease)
        for call_id, name, outcome in prior.calls:
            self.seeded.add(call_id)
            log(
                "tool.call",
                {
                    "callId": call_id,
                    "name": name,
                    "argsDigest": canonical_digest({}),
                    "argsPreview": preview({}),
                },
            )
            done = (
                ToolOutcome("succeeded", {})
                if outcome == "ok"
                else ToolOutcome("failed", reason="failed in an earlier pass")
            )
            log("tool.result", result_payload(call_id, done))
        if prior.text:
            log("text.delta", {"text": prior.text, "index": 0})
        store.settle(lease, "waiting", "worker_lost")
        store.requeue(minted)

    def _stale(self, index: int, stale: Lease, results: Sequence[Any]) -> None:
        """The worker that parked comes back late with its old lease: the fence must refuse it.
        What it met is read from the database: the Run's rows before its pass and after (nothing
        else writes in between), beside whether the runtime raised."""
        request = self._request(index, ScriptedExecutor(list(results)), StaleWorker())
        before = run_rows(self.conn, stale.run_id)
        try:
            execute_pass(self.store, stale, request, resume=True)
        except StaleGenerationError as refused:
            raised, detail = True, str(refused)
        else:
            raised = False
            detail = (
                f"worker {stale.owner} passed with generation {stale.generation} after the "
                "lease moved on, and nothing refused it"
            )
        landed = rows_landed(before, run_rows(self.conn, stale.run_id))
        self.ledger.stale.append(StaleWrite(index, raised, landed, detail))

    def _run_scheduled(self) -> None:
        """The scheduled Routine, worker pass after worker pass, until its Run settles or waits
        on something nobody in the Trial decides. A worker that dies is followed by a restart
        of the Host and, once its lease has run out, a new worker; a retry wait by a restart
        and the runtime's timer sweep; an approval by the approver's grant, when there is one."""
        job = self.desk.job
        assert job is not None
        try:
            definition = parse_definition(job.definition)
            extra = GuardrailConfig.parse(job.guardrail)
        except (RoutineError, GuardrailConfigError) as bad:
            raise HostError(f"the scheduled Routine cannot run: {bad}") from None
        bundle = active_bundle(self.conn)
        if bundle is None:
            raise HostError("no active Soul publication")
        guardrails = load_bundle(bundle).guardrails.merged(extra)
        contract = ToolContract(
            job.tool, job.description, job.input_schema, job.mutating, job.requires_approval
        )
        run_id = start_routine(self.store, self.case.agent, job.slug, definition, job.inputs)
        for passes in range(1, MAX_PARKS_PER_TURN + 1):
            provider = HttpToolProvider(job.provider_url)
            request = RoutineRequest(definition, contract, provider, guardrails, self.desk.fault)
            try:
                status = run_routine(self.store, run_id, request, worker=f"worker-{passes}")
            except WorkerCrashedError:
                self.desk.crashes += 1
                self._restart()
                self.clock.advance_to(self.clock() + LEASE_SECONDS)  # the dead worker's lease
                continue
            except Exception as error:  # the runtime's worker broke: a verdict, read back
                self.desk.raised = f"{type(error).__name__}: {error}"
                break
            if status != "waiting":
                break
            due = retry_waits.next_due(self.conn, run_id)
            if due is not None:
                self._restart()
                if not self._wake(due):
                    break
                continue
            tool = next(row for row in states(self.conn, run_id) if row.kind == "tool")
            pending = self.store.pending_approvals(tool.state_id)
            if pending and job.approver is None and self.desk.requeue_once:
                self.desk.requeue_once = False  # re-queued undecided: the gate must hold
                self.store.requeue(Minted(run_id, tool.state_id, ""))
                continue
            if not pending or job.approver is None:
                break  # nobody in this Trial decides: the Run stays waiting
            for approval_id in pending:
                self.store.grant(approval_id, by=job.approver)
                self.desk.granted()
            self.store.requeue(Minted(run_id, tool.state_id, ""))
        # past MAX_PARKS_PER_TURN passes it parks without end: read back as it is
        self._read_back_scheduled(run_id)

    def _wake(self, due: float) -> list[str]:
        """The runtime's timer sweep after a restart: it ticks once before the wait is due (a
        State it wakes then was woken early, and its provider sees the call come back sooner
        than it asked), then again once the Trial's clock reached the due time."""
        early = retry_waits.wake_due(self.store)
        if early:
            return early
        self.clock.advance_to(due)
        return retry_waits.wake_due(self.store)

    def _read_back_scheduled(self, run_id: str) -> None:
        rows = states(self.conn, run_id)
        status, reason = run_status(self.conn, run_id)
        tool = next((row for row in rows if row.kind == "tool"), None)
        capture = next((row for row in rows if row.kind == "capture"), None)
        tool_status = tool.status if tool is not None else None
        self.ledger.turn_rows.append(TurnRecord(1, run_id, status, tool_status, None, reason))
        self._read_back_events(1, run_id)
        captured = capture is not None and capture.status == "succeeded"
        self.desk.result = RoutineOutcome(
            run_id=run_id,
            run_status=status,
            reason=reason,
            state_status=tool_status,
            state_output=capture.output if capture is not None else None,
            captured=captured,
            crashes=self.desk.crashes,
            raised=self.desk.raised,
        )

    def _doctor(self, index: int, run_id: str) -> None:
        def published(commit: Commit, publication: Publication) -> None:
            with atomic(self.conn):
                publish(self.conn, commit.sha, str(publication.bundle), publication.artifacts, None)

        repo = self.repo

        def operator(slug: str, content: str) -> None:
            commit = repo.write("Routine", slug, content, subject=f"operator: edit {slug}")
            self.operator_commits.add(commit.sha)
            published(commit, repo.publish(commit.sha))

        self.doctor.operator = operator
        before = repo.head()
        hook = Publishing(published, self.witness.around)  # the repairs pass the Tool witness
        run_doctor(self.conn, repo, self.doctor, hook, run_id)
        after = repo.head()
        if after != before:  # what landed in the repository, whatever the doctor recorded
            self.doctor.commit_rows.extend(self._commits(index, before, after))
        self.doctor.rows = [
            DoctorEvent(e.kind, e.subject, e.detail, e.commit) for e in recorded(self.conn)
        ]

    def _restart(self) -> None:
        """The Host's process restarts: its memory and connections are gone; the database is
        what it had committed."""
        if self.clients is not None:
            self.clients.close()
            self.clients = None
        dying = self.conn.inner
        self.conn.inner = self.tier.template.reopen(self.conn.inner)
        self.store = RunStore(self.conn, self.clock)
        if self.conn.inner is not dying:  # a restart that kept its session restarted nothing
            self.restarts += 1
            self.ledger.restart_count = self.restarts

    def _commits(self, index: int, before: str, after: str) -> list[SoulCommit]:
        """The Soul repository's commits from ``before`` to ``after``, filed under Turn
        ``index``; the fixture's operator edits are its own, never the Agent's or the doctor's."""
        return [
            SoulCommit(index, sha, list(paths))
            for sha, paths in self.repo.log(before, after)
            if sha not in self.operator_commits
        ]

    def _read_back_events(self, index: int, run_id: str) -> None:
        """The Run's events as the database holds them, filed under Turn ``index``."""
        self.recorded.extend(
            Event(turn_index=index, seq=seq, type=kind, participant=who, payload=payload)
            for seq, kind, who, payload in self.store.events(run_id)
        )

    def _read_back(self, index: int, minted: Minted) -> None:
        """What this Turn left in the database and the Soul repository."""
        store = self.store
        run_status, state_status, turn_status, reason = store.statuses(minted)
        self.ledger.turn_rows.append(
            TurnRecord(index, minted.run_id, run_status, state_status, turn_status, reason)
        )
        self._read_back_events(index, minted.run_id)
        self.ledger.message_rows.extend(
            PersistedMessage(index, role, content, metadata)
            for role, content, metadata in store.messages(minted.run_id)
        )
        if self.writes_soul:
            repo = self.repo
            head = repo.head()
            if head != self.head:
                self.history.commit_rows.extend(self._commits(index, self.head, head))
                self.head = head
        row = self.conn.execute(
            "SELECT commit_sha, artifacts FROM soul_publications WHERE active = 1"
        ).fetchone()
        if row is not None:
            self.history.publication_rows.append(
                ActivePublication(index, row[0], json.loads(row[1]))
            )

    def _evidence(self) -> Evidence:
        decisions = Decisions(self.recorded)
        journey = folded(self.ledger.turn_rows)
        run_status = journey.run_status if journey is not None else None
        last = self.ledger.turn_rows[-1] if self.ledger.turn_rows else None
        answer = next(
            (
                m
                for m in reversed(self.ledger.message_rows)
                if m.role == "assistant" and last is not None and m.turn_index == last.turn_index
            ),
            None,
        )
        output_text: Any = None
        output_structured: Any = None
        output_kind = "none"
        if answer is not None and isinstance(answer.content, dict):
            output_text = answer.content.get("content")
            structured = isinstance(answer.metadata, dict) and (
                answer.metadata.get("outputKind") == "structured"
            )
            output_kind = "structured" if structured else "text"
            if structured and isinstance(output_text, str):
                output_structured = json.loads(output_text)
        elif last is not None and last.reason in LIMIT_REASONS:
            output_kind = "tool_calls"
        said = [c for c in decisions.calls if c.call_id not in self.seeded]
        return Evidence(
            tier=self.case.tier,
            testimony=Testimony(
                system_prompt=self.system_prompt,
                model_calls=self._reported_calls(),
                tool_calls=said,
            ),
            output_text=output_text if isinstance(output_text, str) else None,
            output_structured=output_structured,
            output_kind=output_kind,  # type: ignore[arg-type]
            tool_calls=list(self.witness.received),
            tool_results=decisions.results,
            denials=decisions.denials,
            guard_decisions=decisions.guards,
            loop_status=_loop_status(run_status),
            loop_reason=journey.reason if journey is not None else None,
            usage=self.usage,
            events=self.recorded,
        )

    def _reported_calls(self) -> int | None:
        """The model calls the runtime says it made, read back from the database: the sum of
        each Turn's count in its last ``turn.finished`` (a resumed Turn carries on its
        checkpoint's count). ``None`` where it keeps no count to check: a Turn that never
        finished (parked), or a worker that died (the calls it made after its last commit are
        gone with it, as they would be in production)."""
        if self.lost_passes or self.desk.crashes:
            return None
        finished: dict[int, Any] = {}
        for event in self.recorded:
            if event.type == "turn.finished":
                finished[event.turn_index] = event.payload
        turns = {row.turn_index for row in self.ledger.turn_rows}
        if not turns or not turns <= finished.keys():
            return None
        total = 0
        for index in sorted(turns):
            count = finished[index].get("modelCallCount")
            if type(count) is not int:
                return None
            total += count
        return total


LIMIT_REASONS = frozenset({ITERATION_LIMIT, TOOL_CALL_LIMIT, REPAIR_BUDGET_EXHAUSTED})


def _loop_status(run_status: str | None) -> str | None:
    """How the tool loop ended, from the Run: a Run needing reconciliation failed its loop."""
    if run_status == "succeeded":
        return "completed"
    if run_status == "needs_reconciliation":
        return "failed"
    return run_status
