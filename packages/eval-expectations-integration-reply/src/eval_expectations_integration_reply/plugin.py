"""Entry point of the integration-reply family: the ``integrationReply`` field (L3, one Turn).

The Case's chat arrived through an integration. Its fixture plays the integration's channel:
every reply the runtime hands it is answered ``{delivered: false, outcome, code}`` as the Case
says, and the channel counts what it was handed. What the runtime made of it (the Run's status
and reason, a ``delivery.result`` event) is read back by the durable family's kinds
(``run_status``, ``run_event_emitted``...): a reply that was not delivered must never be
reported as a success. What the channel itself was handed is its own witness
(``integration_reply_handed``), and the runtime's ``delivery.result`` events are checked
against it on every Trial.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, Literal, Protocol

import msgspec

from eval_core.kinds import (
    BLOCK,
    L3,
    CaseBase,
    CaseField,
    Evidence,
    Expectation,
    FixtureRequest,
    KindSpec,
    LoadContext,
    Location,
    TrialFixture,
    Verdict,
    WitnessCheck,
    failed,
    hookimpl,
    minimum,
    need,
    own_cases,
    passed,
    quoted,
    rules,
    scorer,
)
from eval_core.records import Redelivery

FIELD = "integration_reply"


class IntegrationReply(msgspec.Struct, **BLOCK):
    """What the integration answers for the Turn's reply: not delivered, with an outcome."""

    delivered: bool
    outcome: Literal["failed", "retryable", "ambiguous"]
    code: str
    wait_id: str | None = None


class Answer(msgspec.Struct, frozen=True):
    """The channel's answer to one reply (a Struct: the family is imported by every Sweep)."""

    delivered: bool
    outcome: str
    code: str


class ReplyRoute(Protocol):
    """The Host's integration channel: where each Turn's reply is delivered, and the
    redeliveries of undelivered replies its database holds."""

    def route_replies(self, deliver: Callable[[str], Any]) -> None: ...

    def redeliveries(self) -> Sequence[Redelivery]: ...


class Channel:
    """The integration's side: answers every reply as the Case says and keeps what it got."""

    def __init__(self, reply: IntegrationReply) -> None:
        self.answer = Answer(reply.delivered, reply.outcome, reply.code)
        self.handed: list[str] = []

    def __call__(self, text: str) -> Answer:
        self.handed.append(text)
        return self.answer


class RepliesHanded(msgspec.Struct, frozen=True, kw_only=True):
    """What the integration's channel was handed, by its own count: one text per delivery;
    ``delivered``: what it answered each time."""

    texts: list[str]
    delivered: bool = False


class RedeliveriesStored(msgspec.Struct, frozen=True, kw_only=True):
    """The redeliveries of undelivered replies, as the Host's database holds them."""

    waits: list[Redelivery]


def _channel(request: FixtureRequest) -> Iterator[None]:
    channel = Channel(request.value)
    route = request.service(ReplyRoute)
    route.route_replies(channel)
    yield
    request.record(RepliesHanded(texts=list(channel.handed), delivered=channel.answer.delivered))
    request.record(
        RedeliveriesStored(
            waits=[
                msgspec.convert(w, Redelivery, from_attributes=True) for w in route.redeliveries()
            ]
        )
    )


class IntegrationReplyRedeliveries(Expectation, tag="integration_reply_redeliveries", frozen=True):
    count: int


@scorer
def _score_redeliveries(e: IntegrationReplyRedeliveries, ev: Evidence) -> Verdict:
    """What the database holds: a reply the channel may take later waits on a stored
    redelivery; one that failed, or may have arrived, must never be sent again."""
    why = "no redelivery was read back (the Case needs 'integrationReply')"
    stored = need(ev.record(RedeliveriesStored), why)
    waiting = [w for w in stored.waits if w.status == "waiting"]
    shown = "; ".join(f"{w.run_id} ({w.code or 'no code'})" for w in waiting[:5]) or "none"
    detail = (
        f"the database holds {len(waiting)} waiting redelivery(ies) of a reply, expected "
        f"{e.count}: {shown}"
    )
    return Verdict(len(waiting) == e.count, detail)


class IntegrationReplyHanded(Expectation, tag="integration_reply_handed", frozen=True):
    count: int = 1


@scorer
def _score_handed(e: IntegrationReplyHanded, ev: Evidence) -> Verdict:
    """The channel's own count: a reply handed twice, or handed empty, or not the Turn's
    answer as the database holds it, fails."""
    why = "no integration channel was read back (the Case needs 'integrationReply')"
    texts = need(ev.record(RepliesHanded), why).texts
    if len(texts) != e.count:
        shown = "; ".join(quoted(t, 60) for t in texts[:5]) or "nothing"
        return failed(
            f"the channel was handed {len(texts)} reply(ies), expected {e.count}: {shown}"
        )
    empty = [i for i, t in enumerate(texts, 1) if not t.strip()]
    if empty:
        return failed(
            f"the channel was handed an empty reply (delivery {empty[0]} of {len(texts)})"
        )
    why = "the Turn's answer was not read back: cannot tell the reply handed was it"
    answer = need(ev.output_text, why)
    other = [t for t in texts if t != answer]
    if other:
        return failed(
            f"the channel was handed {quoted(other[0], 80)}, not the Turn's answer "
            f"{quoted(answer, 80)}"
        )
    return passed(
        f"the channel was handed {len(texts)} reply(ies), the Turn's answer {quoted(answer, 80)}"
    )


@hookimpl
def eval_kinds() -> list[KindSpec]:
    l3 = partial(KindSpec, tiers=L3, seam_independent=True)
    return [
        l3(
            struct=IntegrationReplyHanded,
            evidence_at=Location.record_of(RepliesHanded),
            witness="channel",
            scorer=_score_handed,
            **rules(count=minimum(1)),
            description=(
                "The integration's channel was handed exactly count replies (default 1), each "
                "the Turn's answer, none empty: by the channel's own count."
                " Needs `integrationReply`."
            ),
            examples=[{"kind": "integration_reply_handed"}],
        ),
        l3(
            struct=IntegrationReplyRedeliveries,
            evidence_at=Location.record_of(RedeliveriesStored),
            witness="store",
            scorer=_score_redeliveries,
            **rules(count=minimum(0)),
            description=(
                "The database holds exactly count waiting redeliveries of an undelivered reply "
                "(1 for a reply the channel may take later, 0 for one it refused or may have "
                "received)."
                " Needs `integrationReply`."
            ),
            examples=[{"kind": "integration_reply_redeliveries", "count": 1}],
        ),
    ]


def deliveries_not_handed(ev: Evidence) -> Iterable[str]:
    """The runtime's ``delivery.result`` events against what the channel was handed and said."""
    handed = ev.record(RepliesHanded)
    if handed is None or ev.events is None:
        return
    results = [e for e in ev.events if e.type == "delivery.result"]
    if len(results) != len(handed.texts):
        yield (
            f"the runtime recorded {len(results)} reply delivery(ies); the channel was handed "
            f"{len(handed.texts)}"
        )
    for event in results:
        said = event.payload.get("delivered") if isinstance(event.payload, dict) else None
        if said is True and not handed.delivered:
            yield "the runtime recorded a reply as delivered; the channel answered not delivered"


@hookimpl
def eval_witness_checks() -> list[WitnessCheck]:
    return [WitnessCheck("reply deliveries not handed", deliveries_not_handed, reads=RepliesHanded)]


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name=FIELD,
            type=IntegrationReply,
            tiers=L3,
            description=(
                "The integration did not deliver the Turn's reply: {delivered: false, outcome: "
                "failed | retryable | ambiguous, code}."
            ),
            examples=[{"delivered": False, "outcome": "retryable", "code": "rate_limited"}],
        )
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    reply = case.field(FIELD)
    if reply is None:
        return _handed_problems(case)
    assert isinstance(reply, IntegrationReply)
    problems: list[tuple[str, str]] = []
    if reply.delivered:
        problems.append(
            ("$.integrationReply.delivered", "a delivered reply is the default: drop the block")
        )
    if not reply.code.strip():
        problems.append(("$.integrationReply.code", "must be a non-empty string"))
    if reply.wait_id is not None:
        problems.append(
            ("$.integrationReply.waitId", "the runtime mints its own waits: drop 'waitId'")
        )
    if case.field("journey") is not None:
        problems.append(("$.journey", "an integrationReply Case is a single Turn: drop 'journey'"))
    return problems


def _handed_problems(case: CaseBase) -> list[tuple[str, str]]:
    return [
        (f"$.expect[{i}].kind", f"{e.kind_name!r} needs 'integrationReply'")
        for i, e in enumerate(case.expect)
        if isinstance(e, IntegrationReplyHanded | IntegrationReplyRedeliveries)
    ]


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [TrialFixture(name="integration-reply", field=FIELD, run=_channel, needs=(ReplyRoute,))]
