"""Doubles of the runtime's ports for its own tests: a model that replays a script, an executor
whose Tools serve scripted outcomes, and the Turn (in memory) or the ``TurnRequest`` (a durable
pass) most tests drive with them; and the operator state native admission reads. The runtime's
tests know nothing of the harness either."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agent_runtime.durable.executor import TurnRequest
from agent_runtime.model import (
    ModelFailure,
    ModelPort,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    ToolSpec,
    Usage,
)
from agent_runtime.native.accounts import AccountAuthority
from agent_runtime.native.routes import NativeRoutes, Route
from agent_runtime.soul.loader import Soul
from agent_runtime.store.database import Connection
from agent_runtime.tools import PLATFORM_TOOLS, ToolExecutor, ToolOutcome
from agent_runtime.turn.loop import run_turn
from agent_runtime.turn.result import TurnResult
from agent_runtime.turn.settings import TurnSettings, TurnStart

SHIPPED = ToolOutcome("succeeded", {"ticketId": "T-1", "status": "shipped"})
"""What ``lookup_ticket`` answers for T-1."""


class ScriptedModel:
    """Test double of the model port: replays responses (or failures) in order, a cursor
    shared across passes like a real model's, and keeps every request it was sent."""

    def __init__(self, *steps: ModelResponse | ModelFailure) -> None:
        self.steps = list(steps)
        self.seen: list[ModelRequest] = []

    def complete(self, request: ModelRequest) -> ModelResponse:
        self.seen.append(request)
        step = self.steps.pop(0)
        if isinstance(step, ModelFailure):
            raise step
        return step


class ScriptedTools:
    """Test double of the executor: each Tool serves its outcomes in order, repeating the last."""

    def __init__(self, **outcomes: ToolOutcome | list[ToolOutcome]) -> None:
        self.outcomes = {k: v if isinstance(v, list) else [v] for k, v in outcomes.items()}
        self.executed: list[ToolCallRequest] = []

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.executed.append(call)
        queue = self.outcomes.get(call.name)
        if not queue:
            return ToolOutcome("failed", reason=f"{call.name} was never scripted")
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def names(self) -> list[str]:
        """The Tools it ran, in order."""
        return [c.name for c in self.executed]


def say(text: str, tokens: int = 0) -> ModelResponse:
    return ModelResponse(text=text, usage=Usage(input_tokens=tokens, output_tokens=1))


def call(*calls: tuple[str, Any], text: str | None = None) -> ModelResponse:
    return ModelResponse(
        text=text,
        tool_calls=[
            ToolCallRequest(f"c{i}-{name}", name, args) for i, (name, args) in enumerate(calls)
        ],
    )


def user(text: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text, **extra}]


def platform(*names: str) -> list[ToolSpec]:
    return [PLATFORM_TOOLS[n] for n in names]


START = frozenset(TurnStart.__struct_fields__)
"""The keywords of :func:`turn` that say where the Turn starts; every other one is a setting."""


def turn(
    soul: Soul,
    agent: str,
    model: ModelPort,
    tools: Iterable[ToolSpec] = (),
    executor: ToolExecutor | None = None,
    text: str = "Where is my order? Ticket T-1042.",
    **kwargs: Any,
) -> TurnResult:
    """One Turn in memory: ``text`` from the user (or ``messages=``), no context unless given;
    any other keyword is a :class:`TurnSettings` or :class:`TurnStart` field."""
    start = {k: kwargs.pop(k) for k in START & kwargs.keys()}
    start.setdefault("messages", user(text))
    settings = TurnSettings(
        soul=soul,
        agent_slug=agent,
        tools=list(tools),
        model=model,
        executor=executor or ScriptedTools(),
        **kwargs,
    )
    return run_turn(settings, TurnStart(**start))


def turn_request(
    soul: Soul,
    conversation: str,
    model: ModelPort,
    executor: ToolExecutor,
    tools: Iterable[ToolSpec] | None = None,
    *,
    agent: str = "support",
    resolve_context: Callable[[], Mapping[str, Any]] = dict,
    **kwargs: Any,
) -> TurnRequest:
    """The first Turn of ``conversation`` as a durable pass runs it, every pass on ``executor``;
    its Tools ``lookup_ticket`` unless given."""
    return TurnRequest(
        conversation_id=conversation,
        agent=agent,
        turn_index=1,
        load_soul=lambda: soul,
        resolve_context=resolve_context,
        tools=platform("lookup_ticket") if tools is None else list(tools),
        model=model,
        executor=lambda _soul, _lease: executor,
        **kwargs,
    )


DESTINATION = "eval/native#42"
ACCOUNT = "approved-native-account"
ROUTINE = "native-issue-triage"


def approve_and_route(conn: Connection) -> None:
    """The operator approved ``ACCOUNT`` and routes ``DESTINATION`` to ``ROUTINE``."""
    AccountAuthority(conn).set_status(ACCOUNT, "approved")
    NativeRoutes(conn).set(Route(DESTINATION, ROUTINE, "support"))


def lease_taken_over(worker: Connection, event_id: str) -> Callable[[object], None]:
    """Admission's ``on_run_inserted`` hook: meanwhile another worker (``fast``) takes the inbox
    event's lease, written on ``worker``'s own connection, inside its transaction."""

    def taken_over(_conn: object) -> None:
        worker.execute(
            "UPDATE native_inbox SET fence = fence + 1, lease_owner = 'fast' WHERE id = ?",
            (event_id,),
        )

    return taken_over
