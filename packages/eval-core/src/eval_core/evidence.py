"""Evidence: everything a Trial observed, read back from the Host, that Expectations score.

The Host fills it after the Trial; nothing here is predicted from the Case. A field left at
``None`` means "not observed", which every scorer treats as a failure with a reason.
Families beyond the built-in ones keep their own typed read-back in ``records``, keyed by the
record name they agree on with the Host, so this struct never grows a field per family.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

GuardStage = Literal["input", "tool_call", "tool_result", "output"]


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


class ModelRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One request as it reached the model port: the real assembled prompt, messages, Tools."""

    system: str
    messages: list[Any]
    tools: list[str]


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


class Evidence(msgspec.Struct, kw_only=True):
    """What one Trial observed. Built by the Host; read by scorers; never by the Case.

    ``injected_fault`` names a fault the Host injected on the Case's behalf and saw fire: a
    ``model_*`` failure it caused is the scenario under test, scored like any other outcome,
    not a vendor failure.
    """

    tier: str
    system_prompt: str | None = None
    model_requests: list[ModelRequest] | None = None
    model_calls: int | None = None
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
    injected_fault: str | None = None
    records: dict[str, Any] = msgspec.field(default_factory=dict)

    def guards_fired(self) -> list[GuardDecision]:
        return [d for d in self.guard_decisions or [] if d.blocked]
