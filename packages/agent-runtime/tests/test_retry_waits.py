"""Retry waits on real SQLite and PostgreSQL: a call whose provider asked to be retried parks
the Run in the database, and the wait survives a restart of the process between the wait and
the retry: a new connection, a new store, a new worker, nothing carried over in memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.durable import retry_waits
from agent_runtime.durable.executor import execute_pass, start_turn
from agent_runtime.durable.runs import Minted, RunStore
from agent_runtime.model import ModelRequest, ModelResponse, ToolCallRequest, ToolSpec
from agent_runtime.soul.loader import Soul
from agent_runtime.store.database import Connection
from agent_runtime.store.storage import StoreTemplate, Template, connect, migrate
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn.result import RETRY_WAIT
from runtime_doubles import ScriptedTools, platform, turn, turn_request

SLACK = platform("send_slack_message")
CALL = ToolCallRequest("c1", "send_slack_message", {"channel": "#ops", "text": "Bulbs shipped."})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Model:
    """Asks for one post, then answers; a cursor shared across passes like a real model's."""

    def __init__(self) -> None:
        self.replies = [ModelResponse(tool_calls=[CALL]), ModelResponse(text="Posted to #ops.")]

    def complete(self, request: ModelRequest) -> ModelResponse:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]


class Slack:
    """The provider (the world, not the runtime): busy ``busy`` times, then posts."""

    def __init__(self, busy: int) -> None:
        self.busy = busy
        self.asked = 0
        self.posted = 0

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.asked += 1
        if self.asked <= self.busy:
            return ToolOutcome("awaiting_retry", reason="rate_limited", retry_after_ms=30_000)
        self.posted += 1
        return ToolOutcome("succeeded", {"ts": "1714.0001"})


class Parked:
    """What a run of the helper below left: the store after the last restart, the Run, the
    provider."""

    def __init__(self, store: RunStore, run: Minted, slack: Slack) -> None:
        self.store, self.run, self.slack = store, run, slack

    def statuses(self) -> tuple[str | None, ...]:
        return self.store.statuses(self.run)[:3]

    def events(self) -> list[tuple[str, Any]]:
        return [(kind, payload) for _, kind, _, payload in self.store.events(self.run.run_id)]


def restart_between_wait_and_retry(
    template: StoreTemplate, tmp_path: Path, eval_soul: Soul, busy: int, waits: int
) -> Parked:
    """Park on a retry; ``waits`` times restart the process (a new connection, a new store),
    let the wait fall due, wake it with the timer sweep and resume with a new worker."""
    clock, model, slack = Clock(), Model(), Slack(busy)
    conn, reopen = _database(template, tmp_path)
    store = RunStore(conn, clock)
    conversation = store.start_conversation("support")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Tell #ops."}])
    parked = execute_pass(
        store, store.claim(run, "a"), turn_request(eval_soul, conversation, model, slack, SLACK)
    )
    # the pass answers its caller with the Turn it parked: on which call, and why
    assert (parked.status, parked.reason) == ("awaiting_retry", RETRY_WAIT)
    assert parked.awaiting == CALL and parked.parked is not None
    assert parked.parked.reason == "rate_limited"
    for attempt in range(waits):
        assert store.statuses(run)[:3] == ("waiting", "waiting", None)  # not completed
        due = retry_waits.next_due(store.conn, run.run_id)
        assert due == clock.now + 30
        store = RunStore(reopen(store.conn), clock)  # the process restarts: memory gone
        assert retry_waits.wake_due(store) == []  # not due yet: nothing moves
        clock.now = due
        assert retry_waits.wake_due(store) == [run.state_id]
        request = turn_request(eval_soul, conversation, model, slack, SLACK)
        execute_pass(store, store.claim(run, f"b{attempt}"), request, resume=True)
    return Parked(store, run, slack)


def _database(
    template: StoreTemplate, tmp_path: Path
) -> tuple[Connection, Callable[[Connection], Connection]]:
    """A database whose restart is a real one: a SQLite file reopened, or a PostgreSQL clone
    reached by a new session."""
    if not isinstance(template, Template):
        return template.fresh(), template.reopen
    path = str(tmp_path / "runtime.db")
    conn = connect(path)
    migrate(conn)

    def reopen(old: Connection) -> Connection:
        old.close()
        return connect(path)

    return conn, reopen


def test_a_retry_wait_survives_a_restart_and_the_effect_runs_once(
    template: StoreTemplate, tmp_path: Path, eval_soul: Soul
) -> None:
    parked = restart_between_wait_and_retry(template, tmp_path, eval_soul, busy=1, waits=1)
    assert parked.statuses() == ("succeeded", "succeeded", "succeeded")
    assert (parked.slack.asked, parked.slack.posted) == (2, 1)
    kinds = [kind for kind, _ in parked.events()]
    assert kinds.count("retry.scheduled") == 1 and kinds.count("retry.woke") == 1
    assert kinds.count("tool.call") == 2  # the provider was reached twice and posted once
    scheduled, woke = (
        next(payload for kind, payload in parked.events() if kind == wanted)
        for wanted in ("retry.scheduled", "retry.woke")
    )
    assert woke == {"waitId": scheduled["waitId"], "callId": "c1"}  # the wait that fell due


def test_a_call_retried_past_the_budget_fails_and_the_model_is_told(
    template: StoreTemplate, tmp_path: Path, eval_soul: Soul
) -> None:
    waits = retry_waits.MAX_RETRY_WAITS
    parked = restart_between_wait_and_retry(template, tmp_path, eval_soul, busy=99, waits=waits)
    assert (parked.slack.asked, parked.slack.posted) == (waits + 1, 0)
    assert parked.statuses()[0] == "succeeded"  # the model was told and answered
    last = [payload for kind, payload in parked.events() if kind == "tool.result"][-1]
    assert (last["status"], last["errorCode"]) == ("error", "failed")
    assert last["summary"].startswith("retry_exhausted: the provider of send_slack_message")


def test_in_memory_a_retry_parks_the_turn_awaiting_retry(eval_soul: Soul) -> None:
    slack = Slack(busy=1)
    result = turn(eval_soul, "support", Model(), SLACK, slack, text="Tell #ops.")
    assert (result.status, result.reason) == ("awaiting_retry", "retry_wait")
    assert result.output_text is None and slack.posted == 0


SEND = ToolSpec(
    "send_invoice",
    "Sends an invoice to a customer by email.",
    {"type": "object"},
    mutating=True,
    side_effecting=True,
    participant_activity="visible",
)


class Twice:
    """Sends INV-7, sends INV-7 again, sends INV-8, answers."""

    def __init__(self) -> None:
        same = {"invoice": "INV-7"}
        self.replies = [
            ModelResponse(tool_calls=[ToolCallRequest("a", "send_invoice", same)]),
            ModelResponse(tool_calls=[ToolCallRequest("b", "send_invoice", same)]),
            ModelResponse(tool_calls=[ToolCallRequest("c", "send_invoice", {"invoice": "INV-8"})]),
            ModelResponse(text="Sent."),
        ]

    def complete(self, request: ModelRequest) -> ModelResponse:
        return self.replies.pop(0)


def test_a_side_effecting_call_is_not_repeated_in_one_turn(eval_soul: Soul) -> None:
    assert eval_soul.agents["support"].restrictions is None  # every Tool the Turn is given
    soul = eval_soul
    mail = ScriptedTools(send_invoice=ToolOutcome("succeeded", {"sent": True}))
    result = turn(soul, "support", Twice(), [SEND], mail, text="Send it.")
    assert [c.call_id for c in mail.executed] == ["a", "c"]
    [denial] = result.denials
    assert (denial.call.call_id, denial.source) == ("b", "repeat")
    assert denial.reason.startswith("repeated_side_effect: send_invoice already ran")
    assert [a["callId"] for a in result.activity] == ["a", "c"]


class ReusedId:
    """Sends INV-7 twice under one call id: a model (or an OpenAI-compatible server that sends
    no ids, read as "") that does not mint a new id per call."""

    def __init__(self) -> None:
        same = {"invoice": "INV-7"}
        self.replies = [
            ModelResponse(tool_calls=[ToolCallRequest("a", "send_invoice", same)]),
            ModelResponse(tool_calls=[ToolCallRequest("a", "send_invoice", same)]),
            ModelResponse(text="Sent."),
        ]

    def complete(self, request: ModelRequest) -> ModelResponse:
        return self.replies.pop(0)


def test_a_reused_call_id_does_not_let_a_side_effect_repeat(eval_soul: Soul) -> None:
    """A call is never among the calls that ran before it is dispatched, so an earlier call
    with its id is an earlier call: before, the guard skipped it and sent INV-7 twice."""
    mail = ScriptedTools(send_invoice=ToolOutcome("succeeded", {"sent": True}))
    result = turn(eval_soul, "support", ReusedId(), [SEND], mail, text="Send it.")
    assert [c.call_id for c in mail.executed] == ["a"]
    [denial] = result.denials
    assert (denial.call.call_id, denial.source) == ("a", "repeat")
    assert denial.reason.startswith("repeated_side_effect: send_invoice already ran")
