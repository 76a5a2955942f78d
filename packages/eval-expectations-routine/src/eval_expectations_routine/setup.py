"""The routine fixture: the Case's Routine scheduled on the Host, its provider on loopback, and
the Run read back from the Host's database into a :class:`RoutineRecord`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from eval_core.evidence import ToolCall
from eval_core.fixtures import FixtureRequest, TrialFixture
from eval_expectations_routine.block import FIELD, RoutineBlock

if TYPE_CHECKING:
    from eval_expectations_routine.provider import FixtureProvider

APPROVER = "user:eval-approver"


class RoutineOutcome(Protocol):
    run_status: str
    reason: str | None
    state_status: str | None
    state_output: Any
    captured: bool
    crashes: int


class RoutineDesk(Protocol):
    """The Host's Routine desk: a Routine run instead of a chat Turn, and its worker's fault
    port."""

    def schedule(
        self,
        slug: str,
        definition: Mapping[str, Any],
        tool: str,
        description: str,
        input_schema: Mapping[str, Any],
        mutating: bool,
        requires_approval: bool,
        guardrail: Mapping[str, Any] | None,
        inputs: Mapping[str, Any],
        provider_url: str,
        approver: str | None,
    ) -> None: ...

    def crash_after(self, point: str) -> None: ...

    def outcome(self) -> RoutineOutcome | None: ...


class RoutineRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The Routine Run as the Host's database holds it, and the provider's own counters.

    ``state_status`` is the Tool State's; ``state_output`` the capture State's output
    (``captured`` false when it never succeeded); ``provider_effects`` the effects the provider
    applied, ``provider_requests`` the requests it served.
    """

    run_status: str
    reason: str | None
    state_status: str | None
    state_output: Any
    captured: bool
    crashes: int
    provider_requests: int
    provider_effects: int


def _provider() -> Iterator[FixtureProvider]:
    """The Sweep's shared provider; its module (``http.server``, about 20 ms) is imported only
    by a Sweep that runs a Routine Case."""
    from eval_expectations_routine.provider import shared_provider

    yield from shared_provider()


def _routine(request: FixtureRequest) -> Iterator[None]:
    block: RoutineBlock = request.value
    provider = request.shared(_provider)
    steps = [msgspec.to_builtins(step) for step in block.provider_steps]
    scenario = provider.open(steps)
    desk = request.service(RoutineDesk)
    contract, definition = block.tool_contract, block.definition
    try:
        desk.schedule(
            definition.slug,
            definition.runtime_form(),
            contract.name,
            contract.description or "",
            contract.input_schema,
            contract.mutating,
            contract.requires_approval,
            block.guardrail,
            block.inputs,
            scenario.url,
            APPROVER if block.approval == "approved" else None,
        )
        if block.crash_after is not None:
            desk.crash_after(block.crash_after)
        yield
        for received in scenario.received:  # the provider is the Routine Tool's witness
            request.received(
                ToolCall(
                    call_id=received.key.partition(":")[0],
                    name=received.tool,
                    arguments=received.arguments,
                )
            )
        outcome = desk.outcome()
        if outcome is not None:
            request.record(
                RoutineRecord(
                    run_status=outcome.run_status,
                    reason=outcome.reason,
                    state_status=outcome.state_status,
                    state_output=outcome.state_output,
                    captured=outcome.captured,
                    crashes=outcome.crashes,
                    provider_requests=scenario.requests,
                    provider_effects=scenario.effects,
                )
            )
    finally:
        provider.forget(scenario)


FIXTURE = TrialFixture(
    name="routine", field=FIELD, run=_routine, needs=(RoutineDesk,), warm=_provider
)
