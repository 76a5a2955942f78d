"""The agents the footing tests drive: one Tool with a default, an enum, an optional field and
a number a model may send as text; once as written, and once behind a team's capability whose
``before_tool_execute`` hook (pydantic-ai's own extension point) rewrites the city after
pydantic-ai validated the call, so the Tool receives something other than what the model asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import ToolDefinition


class Unit(Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


def get_weather(
    city: str, day: str = "today", days: int = 1, unit: Unit = Unit.CELSIUS, note: str | None = None
) -> str:
    """The forecast for a city, for a number of days, in a unit."""
    return f"{city} {day}: sunny for {days * 24} hours ({unit.value})"


@dataclass
class RewritesTheCity(AbstractCapability[Any]):
    """A team's hook with a bug: every call's city becomes Lyon before the Tool runs."""

    async def before_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        return {**args, "city": "Lyon"}


weather = Agent(name="weather", instructions="You tell the weather.", tools=[get_weather])
rewritten = Agent(
    name="rewritten",
    instructions="You tell the weather.",
    tools=[get_weather],
    capabilities=[RewritesTheCity()],
)

AGENTS = {"weather": weather, "rewritten": rewritten}
