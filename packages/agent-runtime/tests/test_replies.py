"""Integration replies, at the runtime's own API: ``deliver_reply`` answers the Run's status as
it settled it by the channel's answer, the same status the database now holds. The eval Host
discards that answer (it reads the database), so only a direct caller meets it."""

from __future__ import annotations

import pytest

from agent_runtime.durable.executor import execute_pass, start_turn
from agent_runtime.durable.replies import Delivery, deliver_reply
from agent_runtime.durable.runs import RunStore
from agent_runtime.soul.loader import Soul
from agent_runtime.store.storage import Template
from runtime_doubles import ScriptedModel, ScriptedTools, say, turn_request

ANSWER = "Your replacement bulbs ship tomorrow."


class Channel:
    """The integration's channel: answers each reply with ``delivery``, keeps what it was handed."""

    def __init__(self, delivery: Delivery) -> None:
        self.delivery = delivery
        self.handed: list[str] = []

    def deliver(self, conversation_id: str, run_id: str, text: str) -> Delivery:
        self.handed.append(text)
        return self.delivery


@pytest.mark.parametrize(
    ("delivery", "status"),
    [
        (Delivery(True), "succeeded"),
        (Delivery(False, "failed", "channel_archived"), "failed"),
        (Delivery(False, "retryable", "rate_limited"), "waiting"),
        (Delivery(False, "ambiguous", "timeout"), "needs_reconciliation"),
        (Delivery(False), "needs_reconciliation"),  # a channel that cannot say is not sure
    ],
)
def test_the_answer_is_the_runs_status_as_the_delivery_settled_it(
    eval_soul: Soul, delivery: Delivery, status: str
) -> None:
    template = Template()
    try:
        store = RunStore(template.fresh())
        conversation = store.start_conversation("support")
        run = start_turn(store, conversation, 1, [{"role": "user", "content": "Where are they?"}])
        request = turn_request(eval_soul, conversation, ScriptedModel(say(ANSWER)), ScriptedTools())
        execute_pass(store, store.claim(run, "worker"), request)
        channel = Channel(delivery)
        assert deliver_reply(store, run.run_id, channel) == status
        assert channel.handed == [ANSWER]
        assert store.statuses(run)[0] == status
    finally:
        template.close()


def test_a_run_that_left_no_answer_delivers_nothing(eval_soul: Soul) -> None:
    template = Template()
    try:
        store = RunStore(template.fresh())
        conversation = store.start_conversation("support")
        run = start_turn(store, conversation, 1, [{"role": "user", "content": "Hello?"}])
        channel = Channel(Delivery(True))
        assert deliver_reply(store, run.run_id, channel) is None
        assert channel.handed == []
    finally:
        template.close()
