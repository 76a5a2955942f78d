"""Evidence: everything a Trial observed, read back from the Host, that Expectations score.

The Host fills it after the Trial; nothing here is predicted from the Case. A field left at
``None`` means "not observed", which every scorer treats as a failure with a reason.
A family's own read-back is a typed record its fixture puts here (:meth:`Evidence.put`) and its
scorers find again by type (:meth:`Evidence.record`), so this struct never grows a field per
family and no two packages agree on a key by convention.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeVar

import msgspec

from eval_core._case.recorded import Answer, Shown

R = TypeVar("R")


_KEYS: dict[type, str] = {}


def record_key(kind: type) -> str:
    """Where a record of this type lives in ``Evidence.records``: owned by its module (asked
    by every read-back and witness check of every Trial, so made once per type)."""
    key = _KEYS.get(kind)
    if key is None:
        key = _KEYS[kind] = f"{kind.__module__}:{kind.__qualname__}"
    return key


GuardStage = Literal["input", "tool_call", "tool_result", "output"]

Part = Literal["request", "tool_call", "denial", "guard", "event", "record", "answer"]
"""The parts of the Evidence a transcript lays out, each with its own anchor."""


class Location(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, rename="camel"):
    """Where in the Evidence an Expectation's evidence lives, so a report can open exactly it.

    ``part`` alone names a whole part (the requests, the Tool calls, a family's records); the
    rest says which one when the scorer knows it: ``index`` the position (0-based) of a model
    request, a denial or a guard decision, ``call_id`` a Tool call, ``turn`` and ``seq`` an
    event, ``record`` a family record's key (:func:`record_key`).
    """

    part: Part
    index: int | None = None
    call_id: str | None = None
    turn: int | None = None
    seq: int | None = None
    record: str | None = None

    # The parts as a kind declares them: ``KindSpec(..., evidence_at=Location.REQUESTS)``.
    REQUESTS: ClassVar[Location]
    TOOL_CALLS: ClassVar[Location]
    DENIALS: ClassVar[Location]
    GUARDS: ClassVar[Location]
    EVENTS: ClassVar[Location]
    RECORDS: ClassVar[Location]
    ANSWER: ClassVar[Location]

    @classmethod
    def request_at(cls, index: int) -> Location:
        """The model request at ``index`` (0-based, as in ``Evidence.model_requests``)."""
        return cls(part="request", index=index)

    @classmethod
    def call_at(cls, call: ToolCall | ToolResult) -> Location:
        """One Tool call (and its result), by its id."""
        return cls(part="tool_call", call_id=call.call_id)

    @classmethod
    def denial_at(cls, index: int) -> Location:
        """The denial at ``index`` (0-based, as in ``Evidence.denials``)."""
        return cls(part="denial", index=index)

    @classmethod
    def guard_at(cls, index: int) -> Location:
        """The guard decision at ``index`` (0-based, as in ``Evidence.guard_decisions``)."""
        return cls(part="guard", index=index)

    @classmethod
    def event_at(cls, event: Event) -> Location:
        """One run event, by its Turn and sequence number."""
        return cls(part="event", turn=event.turn_index, seq=event.seq)

    @classmethod
    def record_of(cls, kind: type) -> Location:
        """A family's record of type ``kind``, as :meth:`Evidence.put` keeps it."""
        return cls(part="record", record=record_key(kind))


class ToolCall(msgspec.Struct, frozen=True, kw_only=True):
    """A call that reached the Tool (a call refused by a gate is a denial, not a call)."""

    call_id: str
    name: str
    arguments: Any
    turn_index: int = 1


class ToolResult(msgspec.Struct, frozen=True, kw_only=True):
    """What a Tool returned to the loop (succeeded, failed, denied or invalid_arguments)."""

    call_id: str
    name: str
    arguments: Any
    status: str
    output: Any = None
    reason: str | None = None
    turn_index: int = 1


class Denial(msgspec.Struct, frozen=True, kw_only=True):
    """A call refused before or at the Tool, as the model saw it."""

    call_id: str
    name: str
    arguments: Any
    reason: str
    source: str
    turn_index: int = 1


class GuardDecision(msgspec.Struct, frozen=True, kw_only=True):
    """One guard's decision at one stage; ``blocked`` false means it looked and let it pass."""

    stage: GuardStage
    guard: str
    blocked: bool
    detail: str = ""
    turn_index: int = 1


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One event the runtime emitted during a Turn (read back from its store at L3)."""

    turn_index: int
    seq: int
    type: str
    participant: str = "runtime"
    payload: Any = None


class SentPart(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One part of a request as the binding sent it: text, or a binary ``file`` / ``image``.

    Binary parts keep the digest and size of the bytes sent, never the bytes themselves.
    """

    type: Literal["text", "file", "image"]
    role: str
    text: str | None = None
    media_type: str | None = None
    filename: str | None = None
    sha256: str | None = None
    size: int | None = None


class RepliedCall(msgspec.Struct, frozen=True, kw_only=True):
    """A Tool call the scripted model made in its reply to one request. ``unoffered`` is the
    script's own mark that the call is to a Tool the agent is not offered, on purpose."""

    call_id: str
    name: str
    unoffered: bool = False


class OfferedTool(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One Tool's declaration as the binding put it in a request: what the model is told the
    Tool does and which arguments its schema takes (``tool_offered`` reads it)."""

    name: str
    description: str | None = None
    input_schema: Any = None


class ModelRequest(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One request as the binding sent it: the assembled prompt, messages and Tools. A binary
    part keeps the digest and size of its bytes (``sha256``, ``size``), never the bytes;
    :func:`eval_core._case.sent.parts_of` reads the request as the provider's parts.
    ``offered`` is each offered Tool's declaration as sent (``None``: not recorded).

    ``replied`` is set by the scripted binding only: the Tool calls its script made in reply
    to this request, checked against ``tools`` on every Trial (a scripted call to a Tool the
    request did not offer is a contradiction, :mod:`eval_core._case.witness`)."""

    system: str
    messages: list[Any]
    tools: list[str]
    replied: list[RepliedCall] | None = None
    offered: list[OfferedTool] | None = None


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def plus(self, other: Any) -> Usage:
        """This usage and ``other``'s (any record with the same five counts: a binding's bill,
        a runtime's own usage), summed: one Trial's spend over its model calls."""
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


class Testimony(msgspec.Struct, frozen=True, kw_only=True):
    """What the runtime said it did, from its own report and events: never scored as what
    happened, only checked against the witnesses (:mod:`eval_core._case.witness`).

    ``tool_calls`` are the calls its events say it dispatched (arguments as its previews show
    them, ``None`` where cut); ``system_prompt`` and ``model_calls`` what it reports having
    assembled and sent; ``usage`` the tokens it reports its model calls spent (zero is a
    report: a runtime that lost its usage says so). ``None`` means the Host has no such report.
    """

    system_prompt: str | None = None
    model_calls: int | None = None
    tool_calls: list[ToolCall] | None = None
    usage: Usage | None = None


class Evidence(msgspec.Struct, kw_only=True):
    """What one Trial observed. Built by the Host; read by scorers; never by the Case.

    Each field has one witness (:data:`eval_core._case.witness.WITNESSES`): ``model_requests``,
    ``model_calls``, ``system_prompt`` and ``tool_batches`` are the binding's (the core fills
    them from the model session after the run: each request as put on the wire, the calls
    counted, ``model_usage`` the tokens its replies carried to the Host, the instructions of the
    last request sent, the call ids of each reply that asked
    for Tools, ``shown``: what each answered request showed the model, as digests, which a
    recording keeps and a replay is compared with, and ``answers``: what the model answered
    each, which a recording writes as the script, and ``model_answered_as``: the model the
    session answered as, the vendor's own name for it where it reported one, else the
    session's); ``tool_calls`` holds each call as the
    Tool itself received it; ``output_*`` and ``loop_*`` are what the Host returned to its caller;
    ``events``, ``tool_results``, ``denials`` and ``guard_decisions`` are the runtime's own
    record, and ``testimony`` what it says it did besides.

    ``injected_fault`` names a fault the Host injected on the Case's behalf and saw fire: a
    ``model_*`` failure it caused is the scenario under test, scored like any other outcome,
    not a vendor failure.
    """

    tier: str
    system_prompt: str | None = None
    model_requests: list[ModelRequest] | None = None
    model_calls: int | None = None
    model_usage: Usage | None = None
    model_answered_as: str | None = None
    shown: list[Shown] | None = None
    answers: list[Answer] | None = None
    output_text: str | None = None
    output_structured: Any = None
    output_kind: Literal["text", "structured", "tool_calls", "none"] | None = None
    tool_calls: list[ToolCall] | None = None
    tool_batches: list[list[str]] | None = None
    tool_results: list[ToolResult] | None = None
    denials: list[Denial] | None = None
    guard_decisions: list[GuardDecision] | None = None
    loop_status: str | None = None
    loop_reason: str | None = None
    usage: Usage = msgspec.field(default_factory=Usage)
    events: list[Event] | None = None
    injected_fault: str | None = None
    testimony: Testimony | None = None
    records: dict[str, Any] = msgspec.field(default_factory=dict)

    def put(self, record: object) -> None:
        """Keep a family's typed read-back; one record per type."""
        self.records[record_key(type(record))] = record

    def record(self, kind: type[R]) -> R | None:
        """The record of exactly this type, or ``None`` when none was read back."""
        if not self.records:  # most Trials: no family read anything back
            return None
        found = self.records.get(record_key(kind))
        return found if isinstance(found, kind) else None

    def guards_fired(self) -> list[GuardDecision]:
        return [d for d in self.guard_decisions or [] if d.blocked]


Location.REQUESTS = Location(part="request")
Location.TOOL_CALLS = Location(part="tool_call")
Location.DENIALS = Location(part="denial")
Location.GUARDS = Location(part="guard")
Location.EVENTS = Location(part="event")
Location.RECORDS = Location(part="record")
Location.ANSWER = Location(part="answer")
