"""Integration replies: the Turn's answer goes back through the integration's channel, and a
reply that was not delivered is never reported as a success. Broken on purpose, the Cases that
measure it turn FAIL."""

from __future__ import annotations

import pytest

from agent_runtime.durable import replies
from agent_runtime.durable.replies import Delivery
from agent_runtime.durable.runs import RunStore
from eval_expectations_integration_reply.plugin import RepliesHanded
from eval_host_agent_runtime import l3  # before any patch: it binds deliver_reply at import
from tests.conftest import Sweep
from tests.test_routine_runs import run_and_read

FAILED = "l3-a-reply-the-integration-refused-fails-the-run"
RETRYABLE = "l3-a-reply-the-integration-may-take-later-waits-for-redelivery"
AMBIGUOUS = "l3-a-reply-that-may-not-have-arrived-needs-reconciliation"
ALL = [FAILED, RETRYABLE, AMBIGUOUS]


def test_the_reply_cases_pass_and_the_channel_was_handed_the_answer(sweep: Sweep) -> None:
    sweep.green(ALL)
    evidence, _ = run_and_read(sweep, RETRYABLE)
    handed = evidence.record(RepliesHanded)
    assert handed is not None
    assert handed.texts == ["Your replacement bulbs for order 5512 ship tomorrow from Lisse."]


def test_a_runtime_that_reports_every_reply_as_delivered_fails_the_reply_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = replies.deliver_reply

    def optimistic(store: RunStore, run_id: str, channel: replies.ReplyChannel) -> str | None:
        class Delivered:
            def deliver(self, conversation_id: str, run_id: str, text: str) -> Delivery:
                channel.deliver(conversation_id, run_id, text)
                return Delivery(True)

        return real(store, run_id, Delivered())

    monkeypatch.setattr(replies, "deliver_reply", optimistic)
    monkeypatch.setattr(l3, "deliver_reply", optimistic)
    sweep.red(ALL)


def test_a_runtime_that_redelivers_an_ambiguous_reply_fails_the_ambiguous_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(replies._SETTLED, "ambiguous", "waiting")
    sweep.red([AMBIGUOUS])
    sweep.green([FAILED, RETRYABLE])
