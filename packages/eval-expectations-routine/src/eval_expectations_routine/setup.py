"""The routine fixtures: the Case's Routine scheduled on the Host, its provider on loopback, and
the Run read back from the Host's database into a :class:`RoutineRecord`; or (``toolProvider``)
a chat Tool the same provider serves. Either way the provider's own log is a
:class:`~eval_expectations_routine.provider_log.ProviderLog`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from eval_core.kinds import FixtureRequest, ToolCall, TrialFixture
from eval_core.records import RoutineOutcome, RoutineSchedule
from eval_expectations_routine.block import FIELD, TOOL_PROVIDER, RoutineBlock, ToolProvider
from eval_expectations_routine.provider_log import ProviderLog, ProviderRequest, call_id_of

if TYPE_CHECKING:
    from eval_expectations_routine.provider import FixtureProvider, Scenario

APPROVER = "user:eval-approver"


class RoutineDesk(Protocol):
    """The Host's Routine desk: a Routine run instead of a chat Turn, and its worker's fault
    port."""

    def schedule(self, routine: RoutineSchedule) -> None: ...

    def crash_after(self, point: str) -> None: ...

    def on_grant(self, action: Callable[[], None]) -> None: ...

    def requeue_undecided(self) -> None: ...

    def outcome(self) -> RoutineOutcome | None: ...


class TrialClock(Protocol):
    """The Trial's clock, as the runtime reads it (the Host moves it when a wait runs out)."""

    def now(self) -> float: ...


class ToolProviders(Protocol):
    """Chat Tools an external provider serves: the Host reaches ``url`` for each call."""

    def serve(self, tool: str, url: str) -> None: ...


class RoutineRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The Routine Run as the Host's database holds it, and the provider's own counters.

    ``state_status`` is the Tool State's; ``state_output`` the capture State's output
    (``captured`` false when it never succeeded); ``provider_effects`` the effects the provider
    applied, ``provider_requests`` the requests it served; ``raised`` what the runtime's
    worker raised when it broke (the Run is read back as that left it).
    """

    run_status: str
    reason: str | None
    state_status: str | None
    state_output: Any
    captured: bool
    crashes: int
    provider_requests: int
    provider_effects: int
    raised: str | None = None


def _provider() -> Iterator[FixtureProvider]:
    """The Sweep's shared provider; its module (``http.server``, about 20 ms) is imported only
    by a Sweep that runs a Routine Case."""
    from eval_expectations_routine.provider import shared_provider

    yield from shared_provider()


def _log(scenario: Scenario, grants: list[int] | None) -> ProviderLog:
    return ProviderLog(
        requests=[
            ProviderRequest(
                tool=r.tool,
                call_id=call_id_of(r.key),
                key=r.key,
                arguments=r.arguments,
                applied=r.applied,
                retry_after_ms=r.retry_after_ms,
                at=r.at,
            )
            for r in scenario.received
        ],
        grants=grants,
    )


def _routine(request: FixtureRequest) -> Iterator[None]:
    block: RoutineBlock = request.value
    provider = request.shared(_provider)
    steps = [msgspec.to_builtins(step) for step in block.provider_steps]
    scenario = provider.open(steps, request.service(TrialClock).now)
    desk = request.service(RoutineDesk)
    grants: list[int] = []  # the provider's count at each of the approver's grants
    desk.on_grant(lambda: grants.append(len(scenario.received)))
    resolved = block.resolved()
    contract, definition = resolved.tool_contract, resolved.definition
    try:
        desk.schedule(
            RoutineSchedule(
                slug=definition.slug,
                definition=definition.runtime_form(),
                tool=contract.name,
                description=contract.description or "",
                input_schema=contract.input_schema,
                mutating=contract.mutating,
                requires_approval=contract.requires_approval,
                guardrail=resolved.guardrail,
                inputs=block.inputs,
                provider_url=scenario.url,
                approver=APPROVER if block.approval == "approved" else None,
            )
        )
        if block.crash_after is not None:
            desk.crash_after(block.crash_after)
        if block.approval == "undecided":
            desk.requeue_undecided()
        yield
        for received in scenario.received:  # the provider is the Routine Tool's witness
            request.received(
                ToolCall(
                    call_id=call_id_of(received.key),
                    name=received.tool,
                    arguments=received.arguments,
                )
            )
        request.record(_log(scenario, grants))
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
                    raised=outcome.raised,
                )
            )
    finally:
        provider.forget(scenario)


def _tool_provider(request: FixtureRequest) -> Iterator[None]:
    """The Case's chat Tool served by the loopback provider; the Tools' witness at the executor
    port sees each call, the provider's log what reached it."""
    block: ToolProvider = request.value
    provider = request.shared(_provider)
    steps = [msgspec.to_builtins(step) for step in block.provider_steps]
    scenario = provider.open(steps, request.service(TrialClock).now)
    try:
        request.service(ToolProviders).serve(block.tool, scenario.url)
        yield
        request.record(_log(scenario, None))
    finally:
        provider.forget(scenario)


FIXTURE = TrialFixture(
    name="routine", field=FIELD, run=_routine, needs=(RoutineDesk, TrialClock), warm=_provider
)
TOOL_PROVIDER_FIXTURE = TrialFixture(
    name="tool-provider",
    field=TOOL_PROVIDER,
    run=_tool_provider,
    needs=(ToolProviders, TrialClock),
    warm=_provider,
)
