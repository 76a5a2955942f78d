"""Services only an L3 Trial offers: durable state set up before the Turns, read back after.

Each wraps one capability of the runtime over the Trial's own database: further Turns on the
conversation, the Trial's clock, chat Tools a provider serves, foreign Files, an earlier pass
of the first Turn, the approval desk, and read-backs of the Runs, the Soul repository and the
doctor. What happens to a Run between its passes is the runtime's own scenario driver's
(:mod:`agent_runtime.durable.scenario`); these only hold what a fixture asked for and what
was read back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from agent_runtime.model import ToolCallRequest
from agent_runtime.soul.doctor import Finding, Repair
from agent_runtime.tools import ToolExecutor, ToolOutcome
from eval_core.hosts import Message, ScriptedResult, ScriptStep
from eval_core.records import (
    ActivePublication,
    DoctorEvent,
    ForeignFile,
    PersistedMessage,
    SoulCommit,
    StaleWrite,
    TurnRecord,
)
from eval_host_agent_runtime.services import REQUESTER, FileStoreService

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
    """Files other users own in the Trial's File store, shared with whom a fixture says, and the
    Roles the requester holds: the requester holds no share of those Files, neither itself nor
    through a Role, so the runtime's File Tools (which then run for the Trial) must neither
    read them nor list them for it."""

    __slots__ = ("files",)

    def __init__(self, files: FileStoreService) -> None:
        self.files = files

    def assign_requester_role(self, role: str) -> None:
        """A Role the requester holds (a real role-assignment row)."""
        self.files.used = True
        self.files.store.assign_role(f"user:{REQUESTER}", role)

    def put_foreign(self, file: ForeignFile) -> None:
        requester = f"user:{REQUESTER}"
        store = self.files.store
        held = {requester, *(f"role:{r}" for r in store.roles_of(requester))}
        if file.owner == requester or held & set(file.shared_with):
            raise ValueError(
                f"{file.file_id}: a foreign File is neither owned by nor shared with "
                f"{requester} or a Role it holds"
            )
        self.files.used = True
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


class RunLedgerService:
    """The Trial's Runs read back from the database, Turn by Turn, and the Host restarts they
    were picked up after."""

    __slots__ = ("message_rows", "restart_count", "stale", "turn_rows")

    def __init__(self, restart_count: Callable[[], int]) -> None:
        self.turn_rows: list[TurnRecord] = []
        self.message_rows: list[PersistedMessage] = []
        self.stale: list[StaleWrite] = []
        self.restart_count = restart_count

    def restarts(self) -> int:
        """How often the Host's process restarted mid-Trial (each a new database session)."""
        return self.restart_count()

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
