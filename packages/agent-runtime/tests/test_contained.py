"""A Turn whose own code raises ends ``failed`` and the worker goes on; what ends a pass on
purpose, a database's own error and the caller's mistakes still reach the caller."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from agent_runtime.durable.executor import NEEDS_RECONCILIATION, execute_pass, start_turn
from agent_runtime.durable.runs import RunStore, StaleGenerationError
from agent_runtime.durable.scenario import WorkerDiedError
from agent_runtime.model import ModelResponse, ToolCallRequest
from agent_runtime.soul.loader import Soul
from agent_runtime.store.storage import StoreTemplate
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn.contained import (
    AGENT_LOOP_ERROR,
    FAULT_CHARS,
    TURN_EXECUTION_FAILED,
    RequestRefusedError,
    fault_of,
)
from agent_runtime.turn.context import ContextError
from agent_runtime.turn.recovery import CheckpointWriteError
from runtime_doubles import (
    ScriptedModel,
    ScriptedTools,
    call,
    platform,
    say,
    turn,
    turn_request,
)

ASKED = call(("lookup_ticket", {"ticketId": "T-1042"}))


class Raising:
    """An executor whose Tool raises ``error`` (a bug in the Tool's own code)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.calls = 0

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.calls += 1
        raise self.error


def test_a_tool_that_raises_fails_the_turn_with_the_exception_as_its_fault(eval_soul: Soul) -> None:
    events: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel(ASKED, say("It shipped."))
    tools = Raising(TypeError("'NoneType' object is not subscriptable"))
    result = turn(
        eval_soul,
        "support",
        model,
        platform("lookup_ticket"),
        tools,
        listener=lambda kind, payload: events.append((kind, payload)),
    )

    assert (result.status, result.reason, result.output_kind) == (
        "failed",
        TURN_EXECUTION_FAILED,
        "none",
    )
    assert result.output_text is None and tools.calls == 1
    assert result.model_calls == 1 and len(model.seen) == 1  # never asked again after the fault
    assert result.fault is not None
    assert result.fault.startswith("TypeError: 'NoneType' object is not subscriptable (at ")
    assert result.fault.endswith(
        f"test_contained.py:{Raising.execute.__code__.co_firstlineno + 2})"
    )
    kind, finished = events[-1]
    assert kind == "turn.finished"
    assert finished == {
        "status": "failed",
        "messageId": None,
        "reason": TURN_EXECUTION_FAILED,
        "modelCallCount": 1,
    }
    assert all("TypeError" not in str(payload) for _, payload in events)  # operator's only


def test_a_turn_that_raises_before_its_first_model_call_fails_the_same_way(
    eval_soul: Soul,
) -> None:
    def broken_listener(kind: str, payload: dict[str, Any]) -> None:
        if kind == "context.assembled":
            raise KeyError("contextDigest")

    result = turn(eval_soul, "support", ScriptedModel(say("never")), listener=broken_listener)
    assert (result.status, result.reason, result.model_calls) == (
        "failed",
        TURN_EXECUTION_FAILED,
        0,
    )
    assert result.fault is not None and result.fault.startswith("KeyError: 'contextDigest' (at ")


@pytest.mark.parametrize(
    "error",
    [
        CheckpointWriteError("the checkpoint store is down"),
        StaleGenerationError("s1", 1, 2),
        WorkerDiedError("the worker died (fault port)"),
        sqlite3.OperationalError("database is locked"),
        KeyboardInterrupt(),
        MemoryError(),
    ],
    ids=lambda error: type(error).__name__,
)
def test_what_ends_a_pass_on_purpose_passes_through(eval_soul: Soul, error: BaseException) -> None:
    model = ScriptedModel(ASKED, say("It shipped."))
    with pytest.raises(type(error)):
        turn(eval_soul, "support", model, platform("lookup_ticket"), Raising(error))


def test_what_the_model_port_raises_reaches_the_caller_as_it_was_raised(eval_soul: Soul) -> None:
    """A binding's own error (a script run out, a client bug) is the model's side: the caller
    gets that very exception, not a failed Turn; a vendor failure is the port's ModelFailure."""
    exhausted = LookupError("script exhausted")

    class Exhausted:
        def complete(self, request: object) -> ModelResponse:
            raise exhausted

    with pytest.raises(LookupError) as raised:
        turn(eval_soul, "support", Exhausted())
    assert raised.value is exhausted


def test_the_callers_mistakes_are_raised_to_the_caller(eval_soul: Soul) -> None:
    lookup = platform("lookup_ticket")
    with pytest.raises(RequestRefusedError, match="two Tools share a name"):
        turn(eval_soul, "support", ScriptedModel(), [*lookup, *lookup])
    with pytest.raises(ContextError, match="unknown context key 'tenant'"):
        turn(eval_soul, "support", ScriptedModel(), context={"tenant": "acme"})
    with pytest.raises(ContextError, match="'mode' must be one of"):
        turn(eval_soul, "support", ScriptedModel(), context={"mode": 5})


def test_a_fault_is_one_bounded_line() -> None:
    try:
        raise ValueError("first line\n" + "x" * (FAULT_CHARS * 2))
    except ValueError as error:
        fault = fault_of(error)
    assert "\n" not in fault
    assert fault.startswith("ValueError: first line xxx") and "..." in fault
    assert len(fault) < FAULT_CHARS + 60
    assert fault_of(RuntimeError()) == "RuntimeError"  # never raised: no place to name


def test_a_durable_turn_whose_loop_raises_needs_reconciliation(
    template: StoreTemplate, eval_soul: Soul
) -> None:
    """An effect may have landed after the last checkpoint, so the Run is left for an
    operator: never retried, never answered, and the fault is on the Run for them to read."""
    store = RunStore(template.fresh())
    conversation = store.start_conversation("support")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Where is T-1042?"}])
    model = ScriptedModel(ASKED, say("It shipped."))
    request = turn_request(eval_soul, conversation, model, Raising(AttributeError("status")))
    result = execute_pass(store, store.claim(run, "w1"), request)

    assert result is not None and result.fault is not None
    run_status, _state, _turn, reason = store.statuses(run)
    assert run_status == NEEDS_RECONCILIATION
    assert reason is not None and reason.startswith(f"{AGENT_LOOP_ERROR}: AttributeError: status")
    finished = [p for _, kind, _, p in store.events(run.run_id) if kind == "turn.finished"]
    assert finished == [
        {"status": "failed", "messageId": None, "reason": NEEDS_RECONCILIATION, "modelCallCount": 1}
    ]
    assert [m[0] for m in store.messages(run.run_id)] == ["user"]  # no answer was made up
    assert len(model.seen) == 1


def test_a_pass_whose_settling_raises_is_rolled_back_and_needs_reconciliation(
    template: StoreTemplate, eval_soul: Soul
) -> None:
    """Past the Turn, the pass's own code (settling the Run, persisting its answer) raises: what
    it wrote since its last checkpoint is rolled back, no answer is kept, and the Run is left
    for an operator with the fault, as when the loop raises. (Here the fault is the live
    stream's: a subscriber that breaks on a successful finish.)"""
    store = RunStore(template.fresh())
    conversation = store.start_conversation("support")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Where is T-1042?"}])
    told: list[tuple[str, dict[str, Any]]] = []

    def stream(kind: str, payload: dict[str, Any]) -> None:
        told.append((kind, payload))
        if kind == "turn.finished" and payload["status"] == "succeeded":
            raise ConnectionResetError("the client went away")

    request = turn_request(
        eval_soul,
        conversation,
        ScriptedModel(ASKED, say("It shipped.")),
        ScriptedTools(lookup_ticket=ToolOutcome("succeeded", output={"status": "shipped"})),
        subscriber=stream,
    )
    result = execute_pass(store, store.claim(run, "w1"), request)

    assert result is not None and result.fault is not None
    assert (result.status, result.reason) == ("failed", TURN_EXECUTION_FAILED)
    assert result.fault.startswith("ConnectionResetError: the client went away (at ")
    run_status, _state, _turn, reason = store.statuses(run)
    assert run_status == NEEDS_RECONCILIATION
    assert reason == f"{AGENT_LOOP_ERROR}: {result.fault}"
    finished = [p for _, kind, _, p in store.events(run.run_id) if kind == "turn.finished"]
    assert finished == [
        {"status": "failed", "messageId": None, "reason": NEEDS_RECONCILIATION, "modelCallCount": 2}
    ]
    assert [m[0] for m in store.messages(run.run_id)] == ["user"]  # the answer was rolled back
    assert told[-1] == ("turn.finished", finished[0])  # the stream is told how it ended


def test_what_the_requests_own_callbacks_raise_reaches_the_caller(
    template: StoreTemplate, eval_soul: Soul
) -> None:
    """The Soul's loader, the context's resolver and the executor's factory are the caller's
    code: what they raise is raised to it, and the Run is left as it was."""
    store = RunStore(template.fresh())
    conversation = store.start_conversation("support")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Where is T-1042?"}])
    broken = LookupError("no active Soul publication")

    def load_soul() -> Soul:
        raise broken

    request = turn_request(eval_soul, conversation, ScriptedModel(), ScriptedTools())
    request.load_soul = load_soul
    with pytest.raises(LookupError) as raised:
        execute_pass(store, store.claim(run, "w1"), request)
    assert raised.value is broken
    assert store.events(run.run_id) == [] and store.statuses(run)[0] == "running"


def test_a_reconciliation_that_fails_too_raises_the_first_fault(
    template: StoreTemplate, eval_soul: Soul
) -> None:
    """A stream that breaks on every finish breaks the reconciliation's own ``turn.finished``
    as well: nothing of either is written, and the caller gets the settling's exception, the
    one that says what went wrong first."""
    store = RunStore(template.fresh())
    conversation = store.start_conversation("support")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Where is T-1042?"}])
    raised: list[BaseException] = []

    def stream(kind: str, payload: dict[str, Any]) -> None:
        if kind == "turn.finished":
            raised.append(ConnectionResetError(f"the client went away ({payload['status']})"))
            raise raised[-1]

    request = turn_request(
        eval_soul,
        conversation,
        ScriptedModel(ASKED, say("It shipped.")),
        ScriptedTools(lookup_ticket=ToolOutcome("succeeded", output={"status": "shipped"})),
        subscriber=stream,
    )
    with pytest.raises(ConnectionResetError) as caught:
        execute_pass(store, store.claim(run, "w1"), request)
    assert [str(e) for e in raised] == [
        "the client went away (succeeded)",
        "the client went away (failed)",
    ]
    assert caught.value is raised[0]
    assert store.statuses(run)[0] == "running"  # left as it was, for an operator or a retry
    finished = [p for _, kind, _, p in store.events(run.run_id) if kind == "turn.finished"]
    assert finished == [] and [m[0] for m in store.messages(run.run_id)] == ["user"]
