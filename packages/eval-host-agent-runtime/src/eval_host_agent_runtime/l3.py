"""An L3 Trial: each Turn of the Case a durable Run of the runtime, then read back.

The Trial gets a fresh copy of the tier's migrated template database (:mod:`.tier`), discarded
when it closes. This module translates only: a Case Turn becomes a runtime :class:`TurnRequest`
(its Soul, Tools, model port, approvals parked), a scheduled Routine a
:class:`RoutineRequest`; what happens to the Run between passes (leases that run out, the
worker that comes back late, restarts, retry waits, grants) is the runtime's own scenario
driver's (:mod:`agent_runtime.durable.scenario`, :mod:`agent_runtime.routines.scenario`), and
so are the doctor's pass and the native channel's admissions. Everything scored is read back
from the database and the Soul repository, never from the loop's memory; the Tool calls are
what the Tools behind the executor port received, in every worker pass (a late worker's too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_runtime.durable.executor import TurnRequest, start_turn
from agent_runtime.durable.replies import deliver_reply
from agent_runtime.durable.runs import Lease
from agent_runtime.durable.scenario import (
    Durable,
    LateWorker,
    TurnHooks,
    TurnScenario,
    seed_prior_pass,
)
from agent_runtime.files.attachments import AttachmentGate
from agent_runtime.guards.guardrails import GuardrailConfig, GuardrailConfigError
from agent_runtime.mcp.client import McpClients
from agent_runtime.mcp.dispatch import McpDispatcher, McpEndpoints, reviewed
from agent_runtime.model import ToolCallRequest, ToolSpec
from agent_runtime.native.scenario import admit_all
from agent_runtime.routines.definitions import RoutineError
from agent_runtime.routines.definitions import parse as parse_definition
from agent_runtime.routines.runs import RoutineRequest, ToolContract, start_routine
from agent_runtime.routines.scenario import RoutineOperator, drive_routine
from agent_runtime.routines.tool_providers import HttpToolProvider
from agent_runtime.soul.doctor import recorded
from agent_runtime.soul.loader import Soul
from agent_runtime.soul.publications import active_bundle, publish
from agent_runtime.soul.repo import Commit, Publication, SoulWriter, load_bundle
from agent_runtime.soul.scenario import DoctorScenario
from agent_runtime.tools import ToolExecutor, ToolOutcome
from eval_core.hosts import CaseBase, Evidence, ModelSession, TurnScripted
from eval_core.records import (
    DoctorEvent,
    SoulCommit,
    StaleWrite,
)
from eval_host_agent_runtime.l3_readback import ReadBack
from eval_host_agent_runtime.l3_services import L3Services
from eval_host_agent_runtime.ports import (
    ModelPort,
    ScriptedExecutor,
    ToolWitness,
    messages,
    tools_of,
)
from eval_host_agent_runtime.services import (
    executor_chain,
)
from eval_host_agent_runtime.tier import DurableTier

SOUL_WRITE = "soul_write"


class HostError(Exception):
    """The L3 Host could not run the Case as written (a harness fault: the Trial errors)."""


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
        self.durable = Durable(tier.template, tier.fresh())
        self.durable.on_restart.append(self._close_clients)
        conn = self.durable.conn
        self.conversation = self.durable.store.start_conversation(case.agent)
        publish(conn, tier.repo.base, str(tier.base_bundle), tier.base_artifacts, None)
        # which server serves each integration is this Trial's own operator configuration:
        # shared by the tier, a Trial pointing its integration elsewhere moved the others' too
        self.endpoints = McpEndpoints()
        self.offer = offer = L3Services(self.durable, self.conversation, case.agent, self.endpoints)
        self.back = ReadBack(self.durable, offer.ledger, offer.history, tier.repo.base)
        self.clients: McpClients | None = None
        # a hand-declared soul_write is routed to the real writer by name, as in the original
        self.writes_soul = SOUL_WRITE in case.platform_tools or any(
            t.name == SOUL_WRITE for t in case.tools
        )
        self.repo = tier.lend() if self.writes_soul else tier.repo  # given back by close()
        self.model: Any = None
        self.witness = ToolWitness()

    def services(self) -> tuple[object, ...]:
        return self.offer.offered()

    def close(self) -> None:
        self._close_clients()
        self.durable.release()
        if self.writes_soul:
            self.tier.give_back(self.repo)

    def _close_clients(self) -> None:
        """What the process holds in memory: its MCP sessions (a restart closes them)."""
        if self.clients is not None:
            self.clients.close()
            self.clients = None

    def run(self) -> Evidence:
        if self.offer.native.deliveries:  # the Trial's work is the channel's: no chat Turn
            admit_all(self.durable.conn, self.offer.native.deliveries)
            return Evidence(tier=self.case.tier)
        if self.offer.desk.job is not None:  # the operator's Routine runs instead of a chat Turn
            self._run_scheduled()
            return self._evidence()
        if self.offer.doctor.proposer is not None and not self.writes_soul:
            self.repo = self.tier.lend()  # the doctor commits: to a copy of its own
            self.writes_soul = True
        self.model = self.offer.faults.model(ModelPort(self.offer.faults.session(self.session)))
        self._turn(1, self.case.input, self.case.tool_results)
        for index, further in enumerate(self.offer.turns.turns, start=2):
            if isinstance(self.session, TurnScripted):
                self.session.begin_turn(further.script)
            self._turn(index, further.input, further.tool_results or self.case.tool_results)
        return self._evidence()

    def _request(self, index: int, scripted: ScriptedExecutor, model: Any) -> TurnRequest:
        """A Case Turn as the runtime's request: the active Soul, the Case's Tools (MCP ones
        marked for review), the model port, and every call needing approval parked."""
        store, case = self.durable.store, self.case
        mcp = bool(
            store.conn.execute(
                "SELECT 1 FROM mcp_chats WHERE conversation_id = ?", (self.conversation,)
            ).fetchone()
        )

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
                    self.endpoints,
                    self.clients,
                )
            inner = executor_chain(
                scripted,
                self.offer.providers.tools,
                self.offer.registry.tools,
                self.offer.files.tools,
            )
            tools = self.witness.around(_DurableTools(inner, writer, dispatcher))
            return self.offer.faults.worker(tools)  # where a worker the fault port kills dies

        tools: list[ToolSpec] = tools_of(case)
        bundle = active_bundle(store.conn)
        if mcp and bundle is not None:
            tools = reviewed(tools, load_bundle(bundle).integrations)
        return TurnRequest(
            conversation_id=self.conversation,
            agent=case.agent,
            turn_index=index,
            load_soul=load,
            resolve_context=lambda: self.offer.faults.resolve_context(case.context or {}),
            tools=tools,
            model=model,
            executor=executor,
            approval=lambda _call: "park",
            attachments=AttachmentGate(self.offer.files.store) if self.offer.files.used else None,
            subscriber=self.offer.events,
        )

    def _turn(self, index: int, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        self.witness.turn_index = index
        store = self.durable.store
        minted = start_turn(store, self.conversation, index, messages(inputs))
        scripted = ScriptedExecutor(list(results))  # the Tools' providers outlive a restart
        request = self._request(index, scripted, self.model)
        if index == 1 and self.offer.prior.seeded():
            self.back.seeded.update(call_id for call_id, _name, _outcome in self.offer.prior.calls)
            seed_prior_pass(store, minted, self.offer.prior.text, self.offer.prior.calls)
        hooks = TurnHooks(
            rebuild=lambda: self._request(index, scripted, self.model),
            late=lambda: self._request(index, ScriptedExecutor(list(results)), LateWorker()),
            parked=self.offer.approvals.waiting,
            requeued=self.offer.faults.requeued,
        )
        drive = TurnScenario(self.durable, minted, hooks).run(f"worker-{index}", request)
        back = self.back
        back.workers_lost += drive.lost_passes
        self.offer.ledger.stale.extend(
            StaleWrite(index, late.raised, late.landed, late.detail) for late in drive.late
        )
        if drive.result is not None:
            back.usage = back.usage.plus(drive.result.usage)
            back.system_prompt = drive.result.system_prompt
        if self.offer.replies.channel is not None:  # the chat came through an integration
            deliver_reply(self.durable.store, minted.run_id, self.offer.replies)
        if self.offer.doctor.proposer is not None:  # the repair pass that follows a Turn
            self._doctor(index, minted.run_id)
        back.turn(index, minted, self.repo if self.writes_soul else None)

    def _run_scheduled(self) -> None:
        """The scheduled Routine, as the runtime's request, driven by the runtime's own driver
        until its Run settles or waits on something nobody in the Trial decides."""
        desk = self.offer.desk
        job = desk.job
        assert job is not None
        try:
            definition = parse_definition(job.definition)
            extra = GuardrailConfig.parse(job.guardrail)
        except (RoutineError, GuardrailConfigError) as bad:
            raise HostError(f"the scheduled Routine cannot run: {bad}") from None
        bundle = active_bundle(self.durable.conn)
        if bundle is None:
            raise HostError("no active Soul publication")
        guardrails = load_bundle(bundle).guardrails.merged(extra)
        contract = ToolContract(
            job.tool, job.description, job.input_schema, job.mutating, job.requires_approval
        )
        store = self.durable.store
        run_id = start_routine(store, self.case.agent, job.slug, definition, job.inputs)
        operator = RoutineOperator(job.approver, desk.requeue_once, desk.granted)
        url = job.provider_url
        drive = drive_routine(
            self.durable,
            run_id,
            lambda: RoutineRequest(
                definition, contract, HttpToolProvider(url), guardrails, desk.fault
            ),
            operator,
        )
        desk.crashes, desk.raised = drive.crashes, drive.raised
        self.back.workers_lost += drive.crashes
        desk.result = self.back.scheduled(run_id, drive.crashes, drive.raised)

    def _doctor(self, index: int, run_id: str) -> None:
        conn = self.durable.conn
        scenario = DoctorScenario(conn, self.repo, self.witness.around, self.back.operator_commits)
        self.offer.doctor.operator = scenario.operator_edit
        added = scenario.run(self.offer.doctor, run_id)
        self.offer.doctor.commit_rows.extend(
            SoulCommit(index, sha, list(paths)) for sha, paths in added
        )
        self.offer.doctor.rows = [
            DoctorEvent(e.kind, e.subject, e.detail, e.commit) for e in recorded(conn)
        ]

    def _evidence(self) -> Evidence:
        return self.back.evidence(self.case.tier, self.witness.received)
