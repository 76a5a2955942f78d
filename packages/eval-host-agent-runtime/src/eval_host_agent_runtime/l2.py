"""An L2 Trial: one Turn in memory through the real assembler, tool loop and guardrails.

The Turn runs the way the runtime runs a Turn without a database: checkpoints kept in memory
and effects through a ledger (:func:`agent_runtime.turn.recovery.run_recovering`), so a failed
checkpoint write is survived by the runtime itself. The Tool calls scored are what the Tools
behind the executor port received (:class:`~eval_host_agent_runtime.ports.ToolWitness`); the
answer and status are what the loop returned; its events are kept as its own record, and what it
says it sent and dispatched as its testimony, which the core checks against the witnesses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_runtime.hosting import INDEPENDENT
from agent_runtime.soul.loader import Soul
from agent_runtime.tools import ToolExecutor
from agent_runtime.turn.recovery import CheckpointFault, MemoryCheckpoints, run_recovering
from agent_runtime.turn.result import TurnResult
from agent_runtime.turn.settings import TurnSettings, TurnStart
from eval_core.hosts import CaseBase, Evidence, ModelSession, Testimony
from eval_core.hosts import Usage as EvalUsage
from eval_host_agent_runtime.events import Decisions, Recorder
from eval_host_agent_runtime.ports import (
    ModelPort,
    ScriptedExecutor,
    ToolWitness,
    messages,
    tools_of,
)
from eval_host_agent_runtime.services import (
    CheckpointFaultService,
    ContextBudgetService,
    EventStreamService,
    FileStoreService,
    HostingService,
    ToolRegistryService,
    executor_chain,
)

if TYPE_CHECKING:  # the File store and the attachment gate load with a Trial that has Files
    from agent_runtime.files.attachments import AttachmentGate
    from agent_runtime.files.store import FileStore

SERVICES: tuple[type, ...] = (
    FileStoreService,
    EventStreamService,
    ToolRegistryService,
    CheckpointFaultService,
    ContextBudgetService,
    HostingService,
)


class L2Trial:
    """One L2 Trial of a Case; fixtures set it up through :meth:`services` before :meth:`run`.

    The services are made on first request: most Trials have no fixture and need none.
    """

    __slots__ = ("_services", "case", "model", "recorder", "scripted", "soul")

    def __init__(self, soul: Soul, case: CaseBase, model: ModelSession) -> None:
        self.soul = soul
        self.case = case
        self.model = model
        self.recorder = Recorder()
        self.scripted = ScriptedExecutor(case.tool_results)
        self._services: _Services | None = None

    def services(self) -> tuple[object, ...]:
        if self._services is None:
            self._services = _Services(self.case.agent, self.scripted, self.recorder)
        found = self._services
        return (
            found.files,
            found.events,
            found.registry,
            found.crash,
            found.budget,
            found.hosting,
        )

    def run(self) -> Evidence:
        case, found = self.case, self._services
        executor: ToolExecutor = self.scripted
        crash: CheckpointFault | None = None
        gate = None
        budget = None
        hosting = INDEPENDENT
        if found is not None:
            executor = executor_chain(self.scripted, found.registry.tools, found.files.tools)
            crash = found.crash
            gate = _gate(found.files.store) if found.files.used else None
            budget = found.budget.tokens
            hosting = found.hosting.hosting()
        witness = ToolWitness(executor)
        settings = TurnSettings(
            soul=self.soul,
            agent_slug=case.agent,
            context=case.context or {},
            tools=tools_of(case),
            model=ModelPort(self.model),
            executor=witness,
            listener=self.recorder,
            attachments=gate,
            context_budget=budget,
            hosting=hosting,
        )
        start = TurnStart(messages=messages(case.input))
        result = run_recovering(settings, start, MemoryCheckpoints(crash))
        return evidence_of(result, case.tier, self.recorder, witness)

    def close(self) -> None:
        pass


class _Services:
    __slots__ = ("budget", "crash", "events", "files", "hosting", "registry")

    def __init__(self, agent: str, scripted: ScriptedExecutor, recorder: Recorder) -> None:
        from agent_runtime.files.store import MemoryFileStore

        self.files = FileStoreService(MemoryFileStore(), agent)
        self.events = EventStreamService()
        self.registry = ToolRegistryService()
        self.crash = CheckpointFaultService(lambda: scripted.effects)
        self.budget = ContextBudgetService()
        self.hosting = HostingService()
        recorder.subscribers.append(self.events)


def _gate(store: FileStore) -> AttachmentGate:
    """The attachment gate, imported with the first Trial that has Files (it brings the
    document readers)."""
    from agent_runtime.files.attachments import AttachmentGate

    return AttachmentGate(store)


def evidence_of(
    result: TurnResult, tier: str, recorder: Recorder, witness: ToolWitness
) -> Evidence:
    """One Turn read back: the calls its Tools received, its output and status from the loop,
    its own record from its events, and what it reports as its testimony."""
    decisions = Decisions(recorder.events)
    usage = result.usage
    spent = EvalUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        reasoning_tokens=usage.reasoning_tokens,
    )
    return Evidence(
        tier=tier,
        testimony=Testimony(
            system_prompt=result.system_prompt,
            model_calls=result.model_calls,
            tool_calls=decisions.calls,
            usage=spent,
        ),
        output_text=result.output_text,
        output_structured=result.output_structured,
        output_kind=result.output_kind,
        tool_calls=witness.received,
        tool_results=decisions.results,
        denials=decisions.denials,
        guard_decisions=decisions.guards,
        loop_status=result.status,
        # a Turn whose code raised: the exception, for the reader of a FAIL
        loop_reason=result.reason if result.fault is None else f"{result.reason}: {result.fault}",
        usage=spent,
        events=recorder.events,
    )
