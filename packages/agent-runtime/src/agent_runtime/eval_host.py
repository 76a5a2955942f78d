"""The one module that adapts this runtime to the eval harness's Host port.

Registered by entry point (``eval.plugins``); nothing on the runtime's own paths imports it.
It hands a Case to the real assembler and the real tool loop, with the harness's model session
behind the model port and the Case's scripted Tools behind the executor port, then reads back
what the Turn decided as Evidence.

- **L2** runs the loop in memory. A ``checkpointCrash`` Case crashes the checkpoint write after
  the first Tool result and retries from the last checkpoint (:class:`_CrashReplay`).
- **L3** (:class:`_DurableTier`) runs each Turn as a real Run on a fresh copy of a migrated
  SQLite database, through the durable executor, with ``soul_write`` committing to a git copy
  of the Eval Soul; approvals are granted as host state; everything scored is read back from
  the database (and the Soul repository), never from the loop's memory.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from agent_runtime.context import (
    RETIRED_CONTEXT_KEYS,
    SOUL_OWNED_CONTEXT_KEYS,
    TURN_CONTEXT_KEYS,
    assemble_system_prompt,
)
from agent_runtime.durable import (
    ContextUnresolvedError,
    TurnRequest,
    execute_pass,
    start_turn,
)
from agent_runtime.file_session import FileSession, ObservedModel, SeedFile
from agent_runtime.file_store import FileStore, MemoryFileStore, Origin, SqlFileStore
from agent_runtime.loop import Checkpoint, OutputKind, TurnResult, run_turn
from agent_runtime.mcp_chat import McpChat
from agent_runtime.mcp_client import McpProvider, ProviderUnavailable
from agent_runtime.model import (
    ModelFailure,
    ModelResponse,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from agent_runtime.model import (
    ModelRequest as RuntimeRequest,
)
from agent_runtime.native_trial import run_native_admission
from agent_runtime.publications import active_bundle, publish
from agent_runtime.runs import Lease, Minted, RunStore, StaleGenerationError
from agent_runtime.soul import Soul, load_soul
from agent_runtime.soul_repo import Commit, Publication, SoulRepo, SoulWriter, artifacts_of
from agent_runtime.storage import Template
from agent_runtime.tools import PLATFORM_TOOLS, OnceExecutor, ToolExecutor, ToolOutcome
from eval_core.case import CaseBase, FilePart, TextPart, ToolCallsStep, ToolDecl
from eval_core.evidence import Denial, Evidence, GuardDecision, ModelRequest, ToolCall, ToolResult
from eval_core.evidence import Usage as EvalUsage
from eval_core.families.faults import RECORD as REPLAY_RECORD
from eval_core.families.faults import ReplayRecord
from eval_core.families.run_events import RECORD as RUN_RECORD
from eval_core.families.run_events import (
    ActivePublication,
    PersistedMessage,
    RunEvent,
    RunRecord,
    SoulCommit,
    TurnRecord,
)
from eval_core.hookspecs import hookimpl
from eval_core.host import ContextRules, ModelCallRequest, ModelError, ModelSession, TurnScripted
from eval_core.scripted import ScriptedTools

HOST_NAME = "agent-runtime"


def _decl(spec: ToolSpec) -> ToolDecl:
    return ToolDecl(
        name=spec.name,
        description=spec.description,
        input_schema=spec.input_schema,
        mutating=spec.mutating,
    )


_PLATFORM: Mapping[str, ToolDecl] = MappingProxyType(
    {name: _decl(spec) for name, spec in PLATFORM_TOOLS.items()}
)


class _Model:
    """The harness's model session behind the runtime's model port; it counts what reached it."""

    __slots__ = ("_decls", "_session", "calls", "requests")

    def __init__(self, session: ModelSession, decls: list[ToolDecl]) -> None:
        self._session = session
        self._decls = decls
        self.calls = 0
        self.requests: list[RuntimeRequest] = []

    def complete(self, request: RuntimeRequest) -> ModelResponse:
        call = ModelCallRequest(system=request.system, messages=request.messages, tools=self._decls)
        self.calls += 1
        self.requests.append(request)
        try:
            reply = self._session.complete(call)
        except ModelError as exc:
            raise ModelFailure(exc.reason, exc.message) from exc
        usage = reply.usage
        return ModelResponse(
            text=reply.text,
            tool_calls=[ToolCallRequest(c.call_id, c.name, c.arguments) for c in reply.tool_calls],
            structured=reply.structured,
            usage=Usage(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                usage.reasoning_tokens,
            ),
            finish_reason=reply.finish_reason,
        )


class _ScriptedExecutor:
    """The Case's scripted Tool results behind the runtime's executor port."""

    __slots__ = ("_tools",)

    def __init__(self, tools: ScriptedTools) -> None:
        self._tools = tools

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        outcome = self._tools.execute(call.name, call.arguments)
        return ToolOutcome(outcome.status, outcome.output, outcome.reason)


def _message(role: str, parts: Sequence[Any]) -> dict[str, Any]:
    text = "\n".join(p.text for p in parts if isinstance(p, TextPart))
    message: dict[str, Any] = {"role": role, "content": text}
    files = [
        {"fileId": p.file_id, "mediaType": p.media_type, "name": p.name}
        for p in parts
        if isinstance(p, FilePart)
    ]
    if files:
        message["files"] = files
    return message


class AgentRuntimeHost:
    """The reference runtime as the system under test."""

    name = HOST_NAME

    def __init__(self, soul_dir: Path) -> None:
        self.soul_dir = soul_dir
        self.soul: Soul = load_soul(soul_dir)
        self._agents = frozenset(self.soul.agents)
        self._rules = ContextRules(
            allowed=TURN_CONTEXT_KEYS,
            soul_owned=SOUL_OWNED_CONTEXT_KEYS,
            retired=frozenset(RETIRED_CONTEXT_KEYS),
        )
        self._durable: _DurableTier | None = None
        self._prompts: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}

    def agents(self) -> frozenset[str]:
        return self._agents

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return _PLATFORM

    def context_rules(self) -> ContextRules:
        return self._rules

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """What the Soul gives the model for this Case: the real assembled system prompt."""
        agent = self.soul.agents.get(case.agent)
        if agent is None:
            return ()
        tools = self.tools_of(case)
        key = (case.agent, tuple((t.name, t.description) for t in tools))
        prompt = self._prompts.get(key)
        if prompt is None:
            prompt = self._prompts[key] = assemble_system_prompt(self.soul, agent, {}, tools)
        return (prompt,)

    def tools_of(self, case: CaseBase) -> list[ToolSpec]:
        tools = [
            ToolSpec(t.name, t.description or "", t.input_schema, t.mutating) for t in case.tools
        ]
        tools.extend(PLATFORM_TOOLS[n] for n in case.platform_tools if n in PLATFORM_TOOLS)
        return tools

    def run_trial(self, case: CaseBase, model: ModelSession, trial: int) -> Evidence:
        if case.tier == "l3":
            if self._durable is None:
                self._durable = _DurableTier(self.soul_dir)
            native = case.field("native_routine")
            if native is not None:  # native-channel admission only: no chat Turn runs
                return _native_admission(self._durable.template, case, native)
            return self._durable.run(case, model, self.tools_of(case))
        tools = self.tools_of(case)
        if case.field("checkpoint_crash") is not None:
            return _CrashReplay(case, model, tools).run(self.soul)
        files = _file_session(case, MemoryFileStore())
        if files is not None:
            return _l2_with_files(self.soul, case, model, tools, files)
        result = run_turn(
            self.soul,
            case.agent,
            context=case.context or {},
            messages=[_message(m.role, m.parts) for m in case.input],
            tools=tools,
            model=_Model(model, [_decl(t) for t in tools]),
            executor=_ScriptedExecutor(ScriptedTools(case.tool_results)),
        )
        return evidence_of(result, case.tier)

    def close(self) -> None:
        """Release the L3 tier (its template database and Soul repository), if it was used."""
        if self._durable is not None:
            self._durable.close()
            self._durable = None


def evidence_of(result: TurnResult, tier: str, turn_index: int = 1) -> Evidence:
    """Read one Turn's decisions back as Evidence (never predicted from the Case)."""
    results = [
        ToolResult(
            call_id=call.call_id,
            name=call.name,
            arguments=call.arguments,
            status=outcome.status,
            output=outcome.output,
            reason=outcome.reason,
            turn_index=turn_index,
        )
        for call, outcome in result.results
    ]
    denials = [
        Denial(
            call_id=d.call.call_id,
            name=d.call.name,
            arguments=d.call.arguments,
            reason=d.reason,
            source=d.source,
            turn_index=turn_index,
        )
        for d in result.denials
    ]
    # a denial the Tool itself returned is a denial the model saw, too
    denials.extend(
        Denial(
            call_id=r.call_id,
            name=r.name,
            arguments=r.arguments,
            reason=r.reason or "",
            source="tool",
            turn_index=turn_index,
        )
        for r in results
        if r.status == "denied"
    )
    usage = result.usage
    return Evidence(
        tier=tier,
        system_prompt=result.system_prompt,
        model_requests=[
            ModelRequest(system=r.system, messages=r.messages, tools=[t.name for t in r.tools])
            for r in result.requests
        ],
        model_calls=result.model_calls,
        output_text=result.output_text,
        output_structured=result.output_structured,
        output_kind=result.output_kind,
        tool_calls=[
            ToolCall(call_id=c.call_id, name=c.name, arguments=c.arguments, turn_index=turn_index)
            for c in result.tool_calls
        ],
        tool_batches=result.batches,
        tool_results=results,
        denials=denials,
        guard_decisions=[
            GuardDecision(
                stage=d.stage,
                guard=d.guard,
                blocked=d.blocked,
                detail=d.detail,
                turn_index=turn_index,
            )
            for d in result.guard_decisions
        ],
        loop_status=result.status,
        loop_reason=result.reason,
        usage=EvalUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            reasoning_tokens=usage.reasoning_tokens,
        ),
    )


@hookimpl
def eval_hosts() -> Mapping[str, Any]:
    return {HOST_NAME: AgentRuntimeHost}


NATIVE_RECORD = "native"


def _native_admission(template: Template, case: CaseBase, block: Any) -> Evidence:
    """A ``nativeRoutine`` Case: admit from a claimed inbox event, read the rows back as plain
    data under ``records["native"]`` (the native plug-in types it)."""
    conn = template.fresh()
    try:
        observation = run_native_admission(
            conn,
            destination=block.destination,
            account_id=block.account_id,
            agent=case.agent,
            text="\n".join(m.text for m in case.input),
            fault=block.fault,
        )
    finally:
        conn.close()
    evidence = Evidence(tier=case.tier)
    evidence.records[NATIVE_RECORD] = observation
    return evidence


# -- Files: the Case's File fixtures in the runtime's File store ---------------------------------

FILES_RECORD = "files"


def _origins(attachments: list[Any], readable: list[Any]) -> list[tuple[Origin, list[Any]]]:
    return [("attachment", attachments), ("library", readable)]


def _file_session(case: CaseBase, store: FileStore) -> FileSession | None:
    """Seed the store from the Case's ``attachments``, ``readable`` and ``agentRoles`` (the files
    plug-in's File structs synthesise their own bytes); ``None`` when the Case has none."""
    attachments = case.field("attachments") or []
    readable = case.field("readable") or []
    roles = case.field("agent_roles") or []
    if not (attachments or readable or roles):
        return None
    seeds = [
        SeedFile(f.file_id, f.name, f.media_type, f.fixture_bytes(), origin, f.replacement_bytes())
        for origin, group in _origins(attachments, readable)
        for f in group
    ]
    return FileSession(store, case.agent, seeds, roles)


def _l2_with_files(
    soul: Soul, case: CaseBase, model: ModelSession, tools: list[ToolSpec], files: FileSession
) -> Evidence:
    """An L2 Turn with File fixtures: the gate, the splitter and the File Tools in the path."""
    result = run_turn(
        soul,
        case.agent,
        context=case.context or {},
        messages=[_message(m.role, m.parts) for m in case.input],
        tools=tools,
        model=ObservedModel(_Model(model, [_decl(t) for t in tools]), files),
        executor=files.tools(_ScriptedExecutor(ScriptedTools(case.tool_results))),
        attachments=files.gate,
    )
    evidence = evidence_of(result, case.tier)
    evidence.records[FILES_RECORD] = files.record()
    return evidence


# -- L2: the checkpoint crash and its retry ------------------------------------------------------


class _CheckpointCrashError(Exception):
    """The checkpoint write died after the first Tool result (the Case's checkpointCrash)."""


class _CrashingCheckpoints:
    """Keeps checkpoints in memory; the first one after a Tool result crashes instead."""

    __slots__ = ("crashed", "saved")

    def __init__(self) -> None:
        self.saved: list[Checkpoint] = []
        self.crashed = False

    def save(self, checkpoint: Checkpoint) -> None:
        if not self.crashed and checkpoint.next_call >= 1:
            self.crashed = True
            raise _CheckpointCrashError("checkpoint write crashed after the first Tool result")
        self.saved.append(checkpoint)


class _CrashReplay:
    """One L2 Trial with ``checkpointCrash``: run, crash, retry from the last checkpoint."""

    __slots__ = ("case", "dispatched", "model", "tools")

    def __init__(self, case: CaseBase, model: ModelSession, tools: list[ToolSpec]) -> None:
        self.case = case
        self.tools = tools
        self.model = _Model(model, [_decl(t) for t in tools])
        self.dispatched: list[str] = []

    def _listen(self, kind: str, payload: dict[str, Any]) -> None:
        if kind == "tool.call":
            self.dispatched.append(str(payload["call_id"]))

    def run(self, soul: Soul) -> Evidence:
        case = self.case
        executor = OnceExecutor(_ScriptedExecutor(ScriptedTools(case.tool_results)))
        checkpoints = _CrashingCheckpoints()

        def attempt(resume: Checkpoint | None) -> TurnResult:
            return run_turn(
                soul,
                case.agent,
                context=case.context or {},
                messages=[_message(m.role, m.parts) for m in case.input],
                tools=self.tools,
                model=self.model,
                executor=executor,
                listener=self._listen,
                checkpoints=checkpoints,
                resume=resume,
            )

        try:
            result = attempt(None)
        except _CheckpointCrashError:
            result = attempt(checkpoints.saved[-1])
        first = next((s for s in case.script if isinstance(s, ToolCallsStep)), None)
        evidence = evidence_of(result, case.tier)
        evidence.records[REPLAY_RECORD] = ReplayRecord(
            crashed=checkpoints.crashed,
            batch=[c.call_id for c in first.calls] if first is not None else [],
            dispatched=list(self.dispatched),
            effects=dict(executor.effects),
            model_calls=self.model.calls,
            turn_model_calls=result.model_calls,
        )
        return evidence


# -- L3: durable Runs ---------------------------------------------------------------------

SOUL_WRITE = "soul_write"
MCP_RECORD = "mcp"
MCP_PROVIDER_COMMAND = (sys.executable, "-m", "eval_expectations_mcp.provider")
MAX_APPROVALS_PER_TURN = 16
FAULT_REASON = "model_not_configured"


class HostError(Exception):
    """The L3 Host could not run the Case as written (a harness fault: the Trial errors)."""


class _Faults:
    """The Case's ``fault``, injected at the dependency it names; ``fired`` once it took effect."""

    __slots__ = ("armed", "fault", "fired")

    def __init__(self, fault: str | None) -> None:
        self.fault = fault
        self.armed = fault == "model"
        self.fired = False

    def resolve_context(self, context: Mapping[str, Any]) -> Mapping[str, Any]:
        if self.fault == "context":
            self.fired = True
            raise ContextUnresolvedError("the context service did not answer (fault: context)")
        return context

    def after_requeue(self) -> None:
        if self.fault == "model_after_checkpoint":
            self.armed = True


class _FaultyModel:
    """The model port as the fault leaves it: unconfigured, or cut at its output limit."""

    __slots__ = ("faults", "inner")

    def __init__(self, inner: _Model, faults: _Faults) -> None:
        self.inner = inner
        self.faults = faults

    def complete(self, request: RuntimeRequest) -> ModelResponse:
        faults = self.faults
        if faults.armed:
            faults.fired = True
            raise ModelFailure(FAULT_REASON, f"no model is configured (fault: {faults.fault})")
        response = self.inner.complete(request)
        if faults.fault == "model_output_limit" and not response.tool_calls:
            faults.fired = True
            return replace(response, finish_reason="length")
        return response


class _L3Tools:
    """Stateful Tools run for real (``soul_write``, published ``mcp_*``); everything else is
    the Case's script."""

    __slots__ = ("mcp", "scripted", "writer")

    def __init__(
        self, scripted: _ScriptedExecutor, writer: SoulWriter | None, mcp: Any = None
    ) -> None:
        self.scripted = scripted
        self.writer = writer
        self.mcp = mcp

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        if call.name == SOUL_WRITE and self.writer is not None:
            return self.writer.execute(call)
        if self.mcp is not None and self.mcp.handles(call.name):
            outcome: ToolOutcome = self.mcp.execute(call)
            return outcome
        return self.scripted.execute(call)


class _DurableTier:
    """The L3 tier of one Host load: a migrated template database and a git copy of the Soul."""

    __slots__ = ("base_artifacts", "base_bundle", "mcp", "repo", "template", "workdir")

    def __init__(self, soul_dir: Path) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="eval-l3-"))
        self.template = Template()
        self.repo = SoulRepo(soul_dir, self.workdir)
        self.base_bundle = self.repo.bundle(self.repo.base)
        self.base_artifacts = artifacts_of(load_soul(self.base_bundle))
        self.mcp: McpProvider | None = None

    def mcp_provider(self) -> McpProvider | None:
        """The fixture MCP provider: started once per Host, restarted only if it died."""
        if self.mcp is None or not self.mcp.alive:
            if self.mcp is not None:
                self.mcp.close()
            try:
                self.mcp = McpProvider(MCP_PROVIDER_COMMAND)
            except ProviderUnavailable:
                self.mcp = None
        return self.mcp

    def close(self) -> None:
        if self.mcp is not None:
            self.mcp.close()
            self.mcp = None
        self.template.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def run(self, case: CaseBase, session: ModelSession, tools: list[ToolSpec]) -> Evidence:
        conn = self.template.fresh()
        try:
            return _L3Trial(self, case, session, tools, RunStore(conn)).run()
        finally:
            conn.close()
            if self.repo.changed():
                self.repo.reset()


class _L3Trial:
    """One L3 Trial: each Turn a Run minted, claimed, executed, settled, then read back."""

    def __init__(
        self,
        tier: _DurableTier,
        case: CaseBase,
        session: ModelSession,
        tools: list[ToolSpec],
        store: RunStore,
    ) -> None:
        self.tier = tier
        self.case = case
        self.session = session
        self.tools = tools
        self.store = store
        self.port = _Model(session, [_decl(t) for t in tools])
        self.faults = _Faults(case.field("fault"))
        self.model = _FaultyModel(self.port, self.faults)
        self.record = RunRecord()
        self.minted: list[Minted] = []
        self.last_results: list[TurnResult] = []
        self.head = tier.repo.base
        self.writes_soul = SOUL_WRITE in case.platform_tools
        self.files = _file_session(case, SqlFileStore(store.conn))
        self.mcp: McpChat | None = None

    def _turns(self) -> list[tuple[list[Any], list[Any], list[Any] | None]]:
        case = self.case
        turns: list[tuple[list[Any], list[Any], list[Any] | None]] = [
            (case.input, case.tool_results, None)
        ]
        for turn in case.field("journey") or ():
            turns.append((turn.input, turn.tool_results or case.tool_results, turn.script))
        return turns

    def run(self) -> Evidence:
        store, case, tier = self.store, self.case, self.tier
        publish(store.conn, tier.repo.base, str(tier.base_bundle), tier.base_artifacts, None)
        conversation = store.start_conversation(case.agent)
        fixture = case.field("mcp")
        if fixture is not None:  # the chat's accounts, grants and consent: host state
            plain = msgspec.to_builtins(fixture)
            self.mcp = McpChat(store.conn, conversation, plain, tier.mcp_provider())
        for index, (messages, results, script) in enumerate(self._turns(), start=1):
            if index > 1 and isinstance(self.session, TurnScripted):
                self.session.begin_turn(script)
            self._turn(conversation, index, messages, results)
        vendor_failed = any(
            (t.reason or "").startswith("model_") for t in self.record.turns
        )  # a real model's outage before the checkpoint: the Trial errors as a vendor failure
        if self.faults.fault == "model_after_checkpoint" and not (
            self.faults.fired or vendor_failed
        ):
            raise HostError(
                "fault model_after_checkpoint: the first pass never parked on an approval "
                "checkpoint, so there was nothing to resume before failing the model"
            )
        return self._evidence()

    def _request(self, conversation: str, index: int, results: list[Any]) -> TurnRequest:
        store, case = self.store, self.case
        scripted = _ScriptedExecutor(ScriptedTools(results))

        def load() -> Soul:
            bundle = active_bundle(store.conn)
            if bundle is None:
                raise HostError("no active Soul publication")
            return load_soul(Path(bundle))

        def executor(soul: Soul, lease: Lease) -> ToolExecutor:
            writer = None
            if self.writes_soul:

                def published(_commit: Commit, pub: Publication | None, _why: str | None) -> None:
                    if pub is not None:
                        publish(
                            store.conn, pub.commit, str(pub.bundle), pub.artifacts, lease.run_id
                        )

                writer = SoulWriter(self.tier.repo, case.agent, published)
            mcp = self.mcp.executor_for(soul.root) if self.mcp is not None else None
            tools = _L3Tools(scripted, writer, mcp)
            return self.files.tools(tools) if self.files is not None else tools

        return TurnRequest(
            conversation_id=conversation,
            agent=case.agent,
            turn_index=index,
            load_soul=load,
            resolve_context=lambda: self.faults.resolve_context(case.context or {}),
            tools=self._tools(),
            model=self.model if self.files is None else ObservedModel(self.model, self.files),
            executor=executor,
            approval=lambda _call: "park",
            attachments=self.files.gate if self.files is not None else None,
        )

    def _tools(self) -> list[ToolSpec]:
        bundle = active_bundle(self.store.conn)
        if self.mcp is None or bundle is None:
            return self.tools
        return self.mcp.tools(Path(bundle), self.tools)

    def _turn(self, conversation: str, index: int, messages: list[Any], results: list[Any]) -> None:
        store = self.store
        minted = start_turn(
            store, conversation, index, [_message(m.role, m.parts) for m in messages]
        )
        self.minted.append(minted)
        request = self._request(conversation, index, results)
        lease = store.claim(minted, owner=f"worker-{index}")
        result = execute_pass(store, lease, request)
        approvals = 0
        while store.statuses(minted)[1] == "waiting":
            approvals += 1
            if approvals > MAX_APPROVALS_PER_TURN:
                raise HostError(
                    f"Turn {index} asked for more than {MAX_APPROVALS_PER_TURN} approvals"
                )
            if self.mcp is not None:
                self.mcp.while_approval_pends()
            for approval_id in store.pending_approvals(minted.state_id):
                store.grant(approval_id)
            store.requeue(minted)
            stale, lease = lease, store.claim(minted, owner=f"worker-{index}.{approvals}")
            try:  # the worker that parked comes back late: the fence must refuse it
                execute_pass(store, stale, request, resume=True)
            except StaleGenerationError as refused:
                self.record.fence_refusals.append(str(refused))
            self.faults.after_requeue()
            result = execute_pass(store, lease, request, resume=True)
        if result is not None:
            self.last_results.append(result)
        self._read_back(index, minted)

    def _read_back(self, index: int, minted: Minted) -> None:
        """What this Turn left in the database and the Soul repository."""
        store, record = self.store, self.record
        run_status, state_status, turn_status, reason = store.statuses(minted)
        record.turns.append(
            TurnRecord(
                turn_index=index,
                run_id=minted.run_id,
                run_status=run_status,
                state_status=state_status,
                turn_status=turn_status,
                reason=reason,
            )
        )
        record.events.extend(
            RunEvent(turn_index=index, seq=seq, type=kind, participant=who, payload=payload)
            for seq, kind, who, payload in store.events(minted.run_id)
        )
        record.messages.extend(
            PersistedMessage(turn_index=index, role=role, content=content, metadata=metadata)
            for role, content, metadata in store.messages(minted.run_id)
        )
        if self.writes_soul:
            repo = self.tier.repo
            head = repo.head()
            if head != self.head:
                record.commits.extend(
                    SoulCommit(turn_index=index, sha=sha, paths=list(paths))
                    for sha, paths in repo.log(self.head, head)
                )
                self.head = head
        row = store.conn.execute(
            "SELECT commit_sha, artifacts FROM soul_publications WHERE active = 1"
        ).fetchone()
        if row is not None:
            record.publications.append(
                ActivePublication(turn_index=index, commit=row[0], artifacts=json.loads(row[1]))
            )

    def _evidence(self) -> Evidence:
        record = self.record
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        denials: list[Denial] = []
        guards: list[GuardDecision] = []
        for event in record.events:
            p, turn = event.payload, event.turn_index
            if not isinstance(p, dict):
                continue
            if event.type == "tool.call":
                calls.append(
                    ToolCall(
                        call_id=p["call_id"],
                        name=p["name"],
                        arguments=p["arguments"],
                        turn_index=turn,
                    )
                )
            elif event.type == "tool.result":
                results.append(
                    ToolResult(
                        call_id=p["call_id"],
                        name=p["name"],
                        arguments=p.get("arguments"),
                        status=p["status"],
                        output=p.get("output"),
                        reason=p.get("reason"),
                        turn_index=turn,
                    )
                )
                if p["status"] == "denied":
                    denials.append(
                        Denial(
                            call_id=p["call_id"],
                            name=p["name"],
                            arguments=p.get("arguments"),
                            reason=p.get("reason") or "",
                            source="tool",
                            turn_index=turn,
                        )
                    )
            elif event.type == "tool.denied":
                denials.append(
                    Denial(
                        call_id=p["call_id"],
                        name=p["name"],
                        arguments=p.get("arguments"),
                        reason=p["reason"],
                        source=p["source"],
                        turn_index=turn,
                    )
                )
            elif event.type == "guardrail.decision":
                guards.append(
                    GuardDecision(
                        stage=p["stage"],
                        guard=p["guard"],
                        blocked=p["blocked"],
                        detail=p.get("detail") or "",
                        turn_index=turn,
                    )
                )
        folded = record.folded()
        run_status = folded.run_status if folded is not None else None
        loop_status = "completed" if run_status == "succeeded" else run_status
        last = record.turns[-1] if record.turns else None
        answer = next(
            (
                m
                for m in reversed(record.messages)
                if m.role == "assistant" and last is not None and m.turn_index == last.turn_index
            ),
            None,
        )
        output_text: Any = None
        output_structured: Any = None
        output_kind: OutputKind = "none"
        if answer is not None and isinstance(answer.content, dict):
            output_text = answer.content.get("content")
            output_kind = (
                "structured" if answer.metadata.get("outputKind") == "structured" else "text"
            )
            if output_kind == "structured" and isinstance(output_text, str):
                output_structured = json.loads(output_text)
        elif last is not None and last.reason and last.reason.startswith("max_"):
            output_kind = "tool_calls"
        usage = Usage()
        for result in self.last_results:
            usage = usage + result.usage
        requests = self.port.requests
        system = (
            requests[-1].system
            if requests
            else (self.last_results[-1].system_prompt if self.last_results else None)
        )
        evidence = Evidence(
            tier=self.case.tier,
            system_prompt=system,
            model_requests=[
                ModelRequest(system=r.system, messages=r.messages, tools=[t.name for t in r.tools])
                for r in requests
            ],
            model_calls=self.port.calls,
            output_text=output_text if isinstance(output_text, str) else None,
            output_structured=output_structured,
            output_kind=output_kind,
            tool_calls=calls,
            tool_results=results,
            denials=denials,
            guard_decisions=guards,
            loop_status=loop_status,
            loop_reason=folded.reason if folded is not None else None,
            usage=EvalUsage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                reasoning_tokens=usage.reasoning_tokens,
            ),
            injected_fault=self.faults.fault if self.faults.fired else None,
        )
        evidence.records[RUN_RECORD] = record
        if self.files is not None:
            evidence.records[FILES_RECORD] = self.files.record()
        if self.mcp is not None:
            evidence.records[MCP_RECORD] = self.mcp.observed()
        return evidence
