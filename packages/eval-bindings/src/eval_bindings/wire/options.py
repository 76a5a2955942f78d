"""What a pin adds to every request besides the conversation: the per-pin switches.

Servers differ on what they do when a request leaves a field out: llama.cpp renders no Tools
unless ``tool_choice`` is sent, a sampler's default temperature differs by server, and only some
accept ``parallel_tool_calls``. So the binding sends ``tool_choice`` whenever Tools are offered
(``"auto"`` unless the pin says otherwise), and ``temperature``, ``seed`` and
``parallel_tool_calls`` only when the pin sets them.

``tool_choice_after_result`` is the choice for a call that answers a Tool result (the last
message is a ``tool`` message). A pin forcing ``"required"`` gets ``"auto"`` there unless it
says otherwise, the reset OpenAI's Agents SDK makes, so a forced call cannot loop a Turn to its
iteration limit; a tiny local model whose server cannot parse a free answer sets ``"none"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ToolChoice = Literal["auto", "required", "none"]
CHOICES: tuple[ToolChoice, ...] = ("auto", "required", "none")


@dataclass(frozen=True, slots=True)
class RequestOptions:
    tool_choice: ToolChoice = "auto"
    tool_choice_after_result: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    temperature: float | None = None
    seed: int | None = None

    def choice(self, messages: list[dict[str, Any]]) -> ToolChoice:
        """The ``tool_choice`` of a call whose conversation is ``messages``."""
        if not messages or messages[-1].get("role") != "tool":
            return self.tool_choice
        if self.tool_choice_after_result is not None:
            return self.tool_choice_after_result
        return "auto" if self.tool_choice == "required" else self.tool_choice

    def describe(self) -> str | None:
        """The switches set, one line (the Scorecard's record of them); ``None``: all defaults."""
        parts = [] if self.tool_choice == "auto" else [f"tool_choice={self.tool_choice}"]
        if self.tool_choice_after_result is not None:
            parts.append(f"tool_choice_after_result={self.tool_choice_after_result}")
        if self.parallel_tool_calls is not None:
            parts.append(f"parallel_tool_calls={str(self.parallel_tool_calls).lower()}")
        return "  ".join(parts) or None


DEFAULT = RequestOptions()
"""No switch set: ``tool_choice`` ``"auto"`` when Tools are offered, nothing else."""
