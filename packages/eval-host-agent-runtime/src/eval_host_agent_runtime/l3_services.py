"""The services an L3 Trial offers fixtures, made over the Trial's own database: each a plain
object a family finds by the Protocol it declares (the Host names no family)."""

from __future__ import annotations

from agent_runtime.durable.scenario import Durable
from agent_runtime.files.store import SqlFileStore
from agent_runtime.mcp.dispatch import McpEndpoints
from eval_host_agent_runtime.channels import (
    McpHostService,
    NativeChannelService,
    ReplyChannelService,
)
from eval_host_agent_runtime.durable_services import (
    ApprovalDeskService,
    ForeignFilesService,
    PriorAttemptService,
    RunLedgerService,
    SoulDoctorService,
    SoulHistoryService,
    ToolProviderService,
    TrialClockService,
    TurnQueueService,
)
from eval_host_agent_runtime.faults import DependencyFaultService
from eval_host_agent_runtime.routine_desk import RoutineDeskService
from eval_host_agent_runtime.services import (
    EventStreamService,
    FileStoreService,
    ToolRegistryService,
)

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


class L3Services:
    """One Trial's services (:data:`SERVICES`, one instance each)."""

    def __init__(
        self, durable: Durable, conversation: str, agent: str, endpoints: McpEndpoints
    ) -> None:
        conn = durable.conn
        self.files = FileStoreService(SqlFileStore(conn), agent)
        self.events = EventStreamService()
        self.registry = ToolRegistryService()
        self.turns = TurnQueueService()
        self.faults = DependencyFaultService()
        self.prior = PriorAttemptService()
        self.approvals = ApprovalDeskService()
        self.mcp = McpHostService(conn, conversation, endpoints)
        self.native = NativeChannelService(conn)
        self.ledger = RunLedgerService(lambda: durable.restarts)
        self.history = SoulHistoryService()
        self.desk = RoutineDeskService()
        self.replies = ReplyChannelService(conn)
        self.doctor = SoulDoctorService()
        self.clock = TrialClockService(durable.clock)
        self.providers = ToolProviderService()
        self.foreign = ForeignFilesService(self.files)

    def offered(self) -> tuple[object, ...]:
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
            self.clock,
            self.providers,
            self.foreign,
        )
