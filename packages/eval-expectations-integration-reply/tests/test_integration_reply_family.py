"""The integration-reply family on its own: the channel's count of what it was handed is the
witness of ``integration_reply_handed``; the scorer is total, and the witness check holds the
runtime's ``delivery.result`` events against the channel."""

from __future__ import annotations

from pathlib import Path

from eval_core._case.evidence import Event, Evidence
from eval_core._case.kinds import Verdict
from eval_core.records import Redelivery
from eval_expectations_integration_reply.plugin import (
    Channel,
    IntegrationReply,
    IntegrationReplyHanded,
    IntegrationReplyRedeliveries,
    RedeliveriesStored,
    RepliesHanded,
    deliveries_not_handed,
    eval_kinds,
)
from eval_kit import assert_kind_conforms, evidence

SNAPSHOTS = Path(__file__).parent / "snapshots"
ANSWER = "Your replacement bulbs for order 5512 ship tomorrow from Lisse."
SPEC, REDELIVERIES = eval_kinds()


def handed(*texts: str) -> RepliesHanded:
    """What the fixture's own channel records once the runtime handed it ``texts``."""
    channel = Channel(IntegrationReply(delivered=False, outcome="failed", code="archived"))
    for text in texts:
        assert not channel(text).delivered
    return RepliesHanded(texts=list(channel.handed), delivered=channel.answer.delivered)


def verdict(record: RepliesHanded | None, count: int = 1, answer: str | None = ANSWER) -> Verdict:
    records = [] if record is None else [record]
    return SPEC.scorer(
        IntegrationReplyHanded(count=count), evidence("l3", records, output_text=answer)
    )


def test_one_reply_the_turns_answer_passes() -> None:
    assert verdict(handed(ANSWER)).passed


def test_a_reply_handed_twice_or_empty_or_not_the_answer_fails() -> None:
    twice = verdict(handed(ANSWER, ANSWER))
    assert not twice.passed and "handed 2 reply(ies), expected 1" in twice.detail
    assert verdict(handed(ANSWER, ANSWER), count=2).passed
    empty = verdict(handed(""))
    assert not empty.passed and "empty reply" in empty.detail
    other = verdict(handed("Something else."))
    assert not other.passed and "not the Turn's answer" in other.detail
    unread = verdict(handed(ANSWER), answer=None)
    assert not unread.passed and "answer was not read back" in unread.detail


def test_no_channel_read_back_fails() -> None:
    missing = verdict(None)
    assert not missing.passed and "no integration channel was read back" in missing.detail
    assert not verdict(handed()).passed  # handed nothing: the reply never went out


def test_the_kinds_keep_the_contract() -> None:
    assert (SPEC.witness, REDELIVERIES.witness) == ("channel", "store")
    assert_kind_conforms(
        SPEC, examples=60, records=[RepliesHanded], snapshot=SNAPSHOTS / f"{SPEC.name}.schema.json"
    )
    assert_kind_conforms(
        REDELIVERIES,
        examples=60,
        records=[RedeliveriesStored],
        snapshot=SNAPSHOTS / f"{REDELIVERIES.name}.schema.json",
    )


def test_redeliveries_are_what_the_database_holds() -> None:
    def stored(*statuses: str) -> Evidence:
        waits = [Redelivery(run_id="r1", status=s, code="rate_limited") for s in statuses]
        return evidence("l3", [RedeliveriesStored(waits=waits)])

    one = IntegrationReplyRedeliveries(count=1)
    none = IntegrationReplyRedeliveries(count=0)
    assert REDELIVERIES.scorer(one, stored("waiting")).passed
    assert not REDELIVERIES.scorer(one, stored()).passed
    assert REDELIVERIES.scorer(none, stored("woken")).passed  # done with, no longer waiting
    twice = REDELIVERIES.scorer(none, stored("waiting"))
    assert (
        not twice.passed
        and "holds 1 waiting redelivery(ies) of a reply, expected 0" in twice.detail
    )
    missing = REDELIVERIES.scorer(none, Evidence(tier="l3"))
    assert not missing.passed and "no redelivery was read back" in missing.detail


def delivery(delivered: bool) -> Event:
    payload = {"delivered": delivered, "outcome": None if delivered else "failed", "code": "x"}
    return Event(turn_index=1, seq=9, type="delivery.result", payload=payload)


def test_the_witness_check_holds_the_record_against_the_channel() -> None:
    agree = evidence("l3", [handed(ANSWER)], events=[delivery(False)])
    assert not list(deliveries_not_handed(agree))
    [twice] = deliveries_not_handed(
        evidence("l3", [handed(ANSWER, ANSWER)], events=[delivery(False)])
    )
    assert "recorded 1 reply delivery(ies); the channel was handed 2" in twice
    [claimed] = deliveries_not_handed(evidence("l3", [handed(ANSWER)], events=[delivery(True)]))
    assert "recorded a reply as delivered; the channel answered not delivered" in claimed
    assert not list(deliveries_not_handed(Evidence(tier="l3")))  # nothing observed: the kinds'
    assert not list(deliveries_not_handed(evidence("l3", [handed(ANSWER)])))
