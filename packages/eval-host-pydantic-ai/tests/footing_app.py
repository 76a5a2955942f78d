"""The agents the footing tests drive: one Tool with a default, an enum, an optional field and
a number a model may send as text; once as written, and once behind a team's capability whose
``before_tool_execute`` hook (pydantic-ai's own extension point) rewrites the city after
pydantic-ai validated the call, so the Tool receives something other than what the model asked;
and an agent whose Tool's validator reads the run's validation context (the team's country),
so the history is read on the Tool's footing only with that context.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from pydantic import AfterValidator, ValidationInfo
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


def _qualified(city: str, info: ValidationInfo) -> str:
    """A bare city gets the team's country from the validation context: ``Paris, FR``."""
    country = (info.context or {}).get("country")
    return city if country is None or "," in city else f"{city}, {country}"


def get_local_weather(city: Annotated[str, AfterValidator(_qualified)]) -> str:
    """The forecast for a city of the team's country."""
    return f"{city}: sunny"


regional = Agent(
    name="regional",
    instructions="You tell the weather at home.",
    tools=[get_local_weather],
    validation_context={"country": "FR"},
)

AGENTS = {"weather": weather, "rewritten": rewritten, "regional": regional}
