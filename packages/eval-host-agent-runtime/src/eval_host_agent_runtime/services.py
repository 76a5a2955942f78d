"""Services a Trial of either tier offers to fixtures: the runtime's capabilities, translated.

Each class wraps one capability of the runtime (its File store, its event stream, its Tool
dispatch, its checkpoint store's fault port). None names a family: fixtures find them by the
Protocols they declare (see :mod:`eval_core._plugins.services`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agent_runtime.hosting import SOUL_HOSTS, Hosting, SoulHost
from agent_runtime.model import ToolCallRequest
from agent_runtime.tools import ToolExecutor, ToolOutcome
from agent_runtime.turn.recovery import CheckpointWriteError
from agent_runtime.turn.settings import Checkpoint
from eval_core.records import GeneratedFile
from eval_host_agent_runtime.events import Subscriber

if TYPE_CHECKING:  # the File Tools load with the first Trial that puts a File
    from agent_runtime.files.store import FileStore, Origin

REQUESTER = "eval"
_ORIGINS: dict[str, Origin] = {"attachment": "attachment", "library": "library"}


def principal_of(agent: str) -> str:
    return f"agent:{agent}"


class FileStoreService:
    """The Trial's File store: the user's Files, the Agent principal's Roles, what it wrote.

    Once anything is put here the runtime's real File Tools (``file_read``, ``file_create``)
    and its attachment gate run for the Trial.
    """

    __slots__ = ("agent", "store", "used")

    def __init__(self, store: FileStore, agent: str) -> None:
        self.store = store
        self.agent = agent
        self.used = False

    def put(self, file_id: str, name: str, media_type: str, data: bytes, origin: str) -> None:
        """A File the user has: ``attachment`` (sent with the Turn) or ``library``."""
        kind = _ORIGINS.get(origin)
        if kind is None:
            raise ValueError(f"origin must be attachment or library, not {origin!r}")
        self.used = True
        self.store.put(file_id, name, media_type, data, origin=kind, owner=f"user:{REQUESTER}")

    def assign_role(self, role: str) -> None:
        """A Role assigned to the Agent's principal (a real role-assignment row)."""
        self.used = True
        self.store.assign_role(principal_of(self.agent), role)

    def replace(self, file_id: str, data: bytes) -> None:
        """The user uploads new bytes over a File."""
        self.store.replace_bytes(file_id, data)

    def content(self, file_id: str) -> bytes | None:
        """The File's bytes as the store holds them now: what a user downloading it gets."""
        found = self.store.get(file_id)
        return None if found is None else found.data

    def generated(self) -> list[GeneratedFile]:
        return [
            GeneratedFile(
                file_id=f.file_id,
                name=f.name,
                media_type=f.media_type,
                status=f.status,
                owner=f.owner,
                readable_by=self.store.shares(f.file_id),
            )
            for f in self.store.files()
            if f.origin == "generated"
        ]

    def roles(self) -> list[str]:
        """The Roles the Agent's principal holds."""
        return self.store.roles_of(principal_of(self.agent))

    def tools(self, inner: ToolExecutor) -> ToolExecutor:
        """The runtime's File Tools over ``inner``, when the Trial has Files."""
        from agent_runtime.files.tools import FileTools  # with the document readers it needs

        if not self.used:
            return inner
        return FileTools(inner, self.store, requester=REQUESTER, principal=principal_of(self.agent))


class EventStreamService:
    """The runtime's live event stream: a subscriber hears each event as it is emitted."""

    __slots__ = ("subscribers",)

    def __init__(self) -> None:
        self.subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Callable[[str, dict[str, Any]], None]) -> None:
        self.subscribers.append(subscriber)

    def __call__(self, kind: str, payload: dict[str, Any]) -> None:
        for subscriber in self.subscribers:
            subscriber(kind, payload)


class ToolRegistryService:
    """Fixture Tools: an implementation a fixture registers for a Tool the Case declares.

    A registered Tool runs instead of the Case's scripted results; its handler gets the call's
    arguments and returns the output, or raises to fail the call with the error as reason.
    """

    __slots__ = ("handlers",)

    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[Any], Any]] = {}

    def register(self, name: str, handler: Callable[[Any], Any]) -> None:
        if name in self.handlers:
            raise ValueError(f"Tool {name!r} is registered twice")
        self.handlers[name] = handler

    def tools(self, inner: ToolExecutor) -> ToolExecutor:
        return _Registered(self.handlers, inner) if self.handlers else inner


class _Registered:
    __slots__ = ("handlers", "inner")

    def __init__(self, handlers: Mapping[str, Callable[[Any], Any]], inner: ToolExecutor) -> None:
        self.handlers = handlers
        self.inner = inner

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        handler = self.handlers.get(call.name)
        if handler is None:
            return self.inner.execute(call)
        try:
            return ToolOutcome("succeeded", handler(call.arguments))
        except Exception as exc:
            return ToolOutcome("failed", reason=str(exc) or type(exc).__name__)


class CheckpointFaultService:
    """The fault port of the runtime's in-memory checkpoint store, and the effects the Tools saw.

    ``crash_after_first_tool_result`` fails the first checkpoint write after a Tool result;
    the runtime then resumes the Turn from its last checkpoint.
    """

    __slots__ = ("_armed", "_crashed", "_effects")

    def __init__(self, effects: Callable[[], Mapping[str, int]]) -> None:
        self._armed = False
        self._crashed = False
        self._effects = effects

    def crash_after_first_tool_result(self) -> None:
        self._armed = True

    def crashed(self) -> bool:
        return self._crashed

    def effects(self) -> dict[str, int]:
        """How many times each call's effect really ran at the Tool, by call id."""
        return dict(self._effects())

    def __call__(self, checkpoint: Checkpoint) -> None:
        if self._armed and not self._crashed and checkpoint.next_call >= 1:
            self._crashed = True
            raise CheckpointWriteError("checkpoint write failed after the first Tool result")


class ContextBudgetService:
    """The token budget of what the model is sent in the Turn: over it, the runtime compacts
    the conversation before the model call."""

    __slots__ = ("tokens",)

    def __init__(self) -> None:
        self.tokens: int | None = None

    def limit(self, tokens: int) -> None:
        self.tokens = tokens


class HostingService:
    """Who hosts the Soul's repository, and whether the Soul runs on the platform under its
    safety floor (the runtime's :class:`agent_runtime.hosting.Hosting`): ``independent`` or
    ``platform`` each."""

    __slots__ = ("repository", "safety")

    def __init__(self) -> None:
        self.repository: SoulHost = "independent"
        self.safety: SoulHost = "independent"

    def host_repository(self, host: str) -> None:
        self.repository = _soul_host(host)

    def host_safety(self, host: str) -> None:
        self.safety = _soul_host(host)

    def hosting(self) -> Hosting:
        return Hosting(self.repository, self.safety)


def _soul_host(host: str) -> SoulHost:
    if host not in SOUL_HOSTS:
        raise ValueError(f"a Soul is hosted {' or '.join(SOUL_HOSTS)}, not {host!r}")
    return host


def executor_chain(
    scripted: ToolExecutor, *layers: Callable[[ToolExecutor], ToolExecutor]
) -> ToolExecutor:
    """The Case's scripted Tools wrapped by each layer in turn (outermost last)."""
    executor = scripted
    for layer in layers:
        executor = layer(executor)
    return executor
