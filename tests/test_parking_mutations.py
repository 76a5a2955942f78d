"""Break the runtime's parking on purpose and watch exactly the Cases that measure it fail.

A Tool whose provider asks to wait (an approval it asked for, a retry it asked for) must park
the call, and at L3 the Run, in the database; a retry wait must survive the Host's restart
between the wait and the retry; a side-effecting call is never repeated in a Turn; a Tool's
participant activity is persisted with the Message. Red means FAIL, never an errored Trial.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from agent_runtime.durable import retry_waits
from agent_runtime.durable.runs import Lease, RunStore
from agent_runtime.durable.scenario import MAX_PARKS_PER_TURN, Durable
from agent_runtime.model import ToolCallRequest
from agent_runtime.turn import tool_step
from tests.conftest import Sweep

RETRY = [
    "support-a-busy-slack-parks-the-post-awaiting-retry",
    "l3-a-rate-limited-post-waits-and-posts-after-a-restart",
    "l3-a-provider-that-stays-busy-fails-the-call-after-three-retries",
]
APPROVAL = [
    "support-a-slack-workspace-asking-for-approval-parks-the-post",
    "triage-a-comment-awaiting-approval-stops-the-batch",
    "l3-a-provider-approval-parks-the-run-and-posts-once-granted",
]
REPEAT = [
    "support-a-side-effecting-email-is-not-sent-twice-in-one-turn",
    "l3-a-repeated-side-effect-is-refused-and-read-back",
]
NEW_ARGUMENTS = ["support-a-side-effecting-email-with-new-arguments-is-not-a-repeat"]
ACTIVITY = [
    "l3-a-visible-tool-activity-is-recorded-on-the-message",
    "l3-a-represented-tool-activity-is-recorded-on-the-message",
]
NO_ACTIVITY = [  # a Tool that declares no participant activity, alone or beside one that does
    "l3-a-tool-without-participant-activity-records-none",
    "l3-only-the-tool-that-declares-its-activity-is-recorded-in-a-batch",
]
ALL = RETRY + APPROVAL + REPEAT + NEW_ARGUMENTS + ACTIVITY + NO_ACTIVITY


def test_the_parking_cases_pass_against_the_real_runtime(sweep: Sweep) -> None:
    sweep.green(ALL)


def test_a_runtime_that_reports_a_waiting_provider_as_an_answer_fails_the_parking_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_step, "PARKED", frozenset())
    sweep.red(RETRY + APPROVAL)
    sweep.green(REPEAT)


def test_a_retry_wait_the_worker_keeps_in_memory_does_not_survive_the_restart(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The row is written, but the timer sweep trusts what its own store scheduled: after the
    Host restarts, nothing wakes and the Run stays waiting."""
    scheduled: dict[int, tuple[RunStore, list[str]]] = {}  # the stores stay alive: ids unique
    real_schedule, real_wake = retry_waits.schedule, retry_waits.wake_due

    def remembered(store: RunStore, lease: Lease, *args: Any, **kwargs: Any) -> Any:
        scheduled.setdefault(id(store), (store, []))[1].append(lease.state_id)
        return real_schedule(store, lease, *args, **kwargs)

    def from_memory(store: RunStore) -> list[str]:
        mine = scheduled.get(id(store), (store, []))[1]
        return [state for state in real_wake(store) if state in mine]

    monkeypatch.setattr(retry_waits, "schedule", remembered)
    monkeypatch.setattr(retry_waits, "wake_due", from_memory)
    woken = ["l3-a-rate-limited-post-waits-and-posts-after-a-restart"]
    sweep.red(woken)


def test_a_runtime_that_repeats_side_effects_fails_the_repeat_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_step.ToolStep, "ran_before", lambda self, call: None)
    sweep.red(REPEAT)
    sweep.green(NEW_ARGUMENTS)


def test_a_runtime_that_compares_only_tool_names_fails_the_new_arguments_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def by_name(self: Any, call: ToolCallRequest) -> str | None:
        for message in self.result.messages:
            for earlier in message.get("tool_calls") or ():
                if earlier["name"] == call.name and earlier["call_id"] != call.call_id:
                    return str(earlier["call_id"])
        return None

    monkeypatch.setattr(tool_step.ToolStep, "ran_before", by_name)
    sweep.red(NEW_ARGUMENTS)
    sweep.green(REPEAT)


def test_a_message_persisted_without_the_tool_activity_fails_the_activity_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_add = RunStore.add_message

    def forgetful(self: RunStore, lease: Lease, conversation: str, role: str, *rest: Any) -> None:
        content, metadata = rest
        kept = {k: v for k, v in metadata.items() if k != "toolActivity"}
        real_add(self, lease, conversation, role, content, kept)

    monkeypatch.setattr(RunStore, "add_message", forgetful)
    sweep.red(ACTIVITY + NO_ACTIVITY)


def test_a_runtime_that_shows_every_tool_as_visible_fails_the_undeclared_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_execute = tool_step.ToolStep.execute

    def visible(self: Any, call: ToolCallRequest) -> bool:
        spec = self.tools[call.name]
        if spec.participant_activity is None:
            self.tools[call.name] = replace(spec, participant_activity="visible")
        return real_execute(self, call)  # type: ignore[no-any-return]

    monkeypatch.setattr(tool_step.ToolStep, "execute", visible)
    sweep.red(NO_ACTIVITY)
    sweep.green(ACTIVITY)


def test_the_host_restarts_between_the_wait_and_the_retry(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between the wait and the retry the Trial's connection is a new session (the database
    reopened) and its store a new one: what the retry finds was read back from the database."""
    seen: list[tuple[bool, bool, str | None]] = []
    real_restart = Durable.restart

    def watched(self: Durable) -> None:
        connection, store = self.conn.inner, self.store
        real_restart(self)
        waiting = self.conn.execute("SELECT status FROM retry_waits").fetchone()
        seen.append((self.conn.inner is not connection, self.store is not store, waiting[0]))

    monkeypatch.setattr(Durable, "restart", watched)
    case = "l3-a-rate-limited-post-waits-and-posts-after-a-restart"
    sweep.green([case])
    assert seen == [(True, True, "waiting")]


def test_a_runtime_that_never_honours_a_grant_parks_without_end_and_is_read_back_waiting(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A runtime that forgets every grant asks for the same approval on every pass: the Run
    parks without end. The scenario stops after MAX_PARKS_PER_TURN parks and reads the Run
    back as it is (waiting), so the approval Case FAILs on the Run's status instead of the
    Sweep hanging; a scenario that re-queued it for ever is stopped here, and errs the Trial."""
    asked: list[str] = []

    def forgetful(self: RunStore, state_id: str) -> frozenset[str]:
        asked.append(state_id)
        if len(asked) > 4 * MAX_PARKS_PER_TURN:
            raise RuntimeError("the scenario kept re-queueing a Run that parks without end")
        return frozenset()

    monkeypatch.setattr(RunStore, "granted_calls", forgetful)
    case = "l3-approval-parks-the-run-and-the-comment-posts-once"
    sweep.red([case])
    assert len(asked) == MAX_PARKS_PER_TURN + 1  # the first pass and one per grant, then none
