"""What a Turn is given (:class:`TurnSettings`) and where it starts (:class:`TurnStart`).

Settings are what a caller decides once for an agent and its Tools: the Soul, the model, the
executor, the limits and policies, who listens. The start is what differs per call: the
messages, the checkpoint it resumes from, the calls already approved, the Turn's identity.
Both are frozen, so a Turn can never change what it was given. Both are msgspec Structs, not
dataclasses: every Trial makes one of each (and replaces one field of each on recovery), and a
Struct is made and copied in C (:func:`msgspec.structs.replace`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

import msgspec

from agent_runtime.hosting import INDEPENDENT, Hosting
from agent_runtime.model import ModelPort, ToolCallRequest, ToolSpec, Usage
from agent_runtime.soul.loader import Soul
from agent_runtime.tools import ToolExecutor
from agent_runtime.turn.events import NO_LISTENER, Listener

Approval = Literal["deny", "park"]

AttachmentCheck = Callable[[list[dict[str, Any]]], Any]
"""Reads the latest user message's attachments before anything else and returns a
:class:`agent_runtime.files.attachments.Rendered`: the messages with the Files rendered as
parts, the PDF model inputs, and a refusal (``.reason``, ``.message``) when one cannot be read."""
ApprovalPolicy = Callable[[ToolCallRequest], Approval]
"""What happens to a mutating call above the autonomy ceiling: refuse it (no durable store to
wait on, as in memory), or park the Turn until someone approves it."""


class LoopLimits(msgspec.Struct, frozen=True):
    """Bounds on one Turn: model calls, Tool calls, and argument repairs."""

    max_iterations: int = 8
    max_tool_calls: int = 16
    max_repair_attempts: int = 2


DEFAULT_LIMITS = LoopLimits()


class Checkpoint(msgspec.Struct, frozen=True):
    """Where a Turn can resume: the conversation so far and the batch being dispatched.

    Written after every model response that asked for Tools (``next_call`` 0) and after every
    Tool result. ``awaiting`` names the call parked for approval, when the Turn is waiting.
    ``usage`` is what the model calls so far used: a resumed Turn's receipt counts them too.
    """

    messages: list[dict[str, Any]]
    batch: list[ToolCallRequest]
    next_call: int
    iteration: int
    model_calls: int
    repairs: int
    dispatched: int
    awaiting: str | None = None
    usage: Usage = Usage()


class Checkpointer(Protocol):
    """Where checkpoints go (a database in production); a save that raises ends the Turn."""

    def save(self, checkpoint: Checkpoint) -> None: ...


class TurnSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What a Turn of ``agent_slug`` is given.

    ``approval`` decides what a mutating call above the autonomy ceiling does (``None`` denies
    it); ``checkpoints`` receives a checkpoint after each model batch and Tool result;
    ``context_budget`` (tokens) compacts what each model call is sent
    (:mod:`agent_runtime.turn.compaction`); ``hosting`` says who hosts the Soul's repository and
    whether the platform's safety floor applies (:mod:`agent_runtime.hosting`);
    ``announce_finish`` False leaves ``turn.finished`` to the caller (the durable executor
    writes it once the Message it names is stored).
    """

    soul: Soul
    agent_slug: str
    tools: Sequence[ToolSpec]
    model: ModelPort
    executor: ToolExecutor
    context: Mapping[str, Any] = msgspec.field(default_factory=dict)
    limits: LoopLimits = DEFAULT_LIMITS
    listener: Listener = NO_LISTENER
    approval: ApprovalPolicy | None = None
    checkpoints: Checkpointer | None = None
    attachments: AttachmentCheck | None = None
    context_budget: int | None = None
    hosting: Hosting = INDEPENDENT
    announce_finish: bool = True


class TurnStart(msgspec.Struct, frozen=True, kw_only=True):
    """Where one call of a Turn starts: its ``messages``, or the checkpoint it resumes from
    (``resume``, whose messages replace them) with the call ids in ``approved`` let past the
    ceiling; and the Turn's identity, as ``turn.started`` announces it."""

    messages: Sequence[dict[str, Any]]
    resume: Checkpoint | None = None
    approved: frozenset[str] = frozenset()
    turn_id: str = "turn-1"
    attempt: int = 1
    conversation_id: str | None = None
