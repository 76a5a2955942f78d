"""Entry point of the integration-reply family: the ``integrationReply`` field (L3, one Turn).

The Case's chat arrived through an integration. Its fixture plays the integration's channel:
every reply the runtime hands it is answered ``{delivered: false, outcome, code}`` as the Case
says, and the channel counts what it was handed. What the runtime made of it (the Run's status
and reason, a ``delivery.result`` event) is read back by the durable family's kinds
(``run_status``, ``run_event_emitted``...): a reply that was not delivered must never be
reported as a success.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import msgspec

from eval_core.case import CaseBase, CaseField
from eval_core.fixtures import FixtureRequest, TrialFixture
from eval_core.hookspecs import hookimpl, own_cases
from eval_core.host import LoadContext
from eval_core.kinds import Tier

FIELD = "integration_reply"
L3: frozenset[Tier] = frozenset({"l3"})


class IntegrationReply(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    rename="camel",
):
    """What the integration answers for the Turn's reply: not delivered, with an outcome."""

    delivered: bool
    outcome: Literal["failed", "retryable", "ambiguous"]
    code: str
    wait_id: str | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    delivered: bool
    outcome: str
    code: str


class ReplyRoute(Protocol):
    """The Host's integration channel: where each Turn's reply is delivered."""

    def route_replies(self, deliver: Callable[[str], Any]) -> None: ...


class Channel:
    """The integration's side: answers every reply as the Case says and keeps what it got."""

    def __init__(self, reply: IntegrationReply) -> None:
        self.answer = Answer(reply.delivered, reply.outcome, reply.code)
        self.handed: list[str] = []

    def __call__(self, text: str) -> Answer:
        self.handed.append(text)
        return self.answer


class RepliesHanded(msgspec.Struct, frozen=True, kw_only=True):
    """What the integration's channel was handed, by its own count: one text per delivery."""

    texts: list[str]


def _channel(request: FixtureRequest) -> Iterator[None]:
    channel = Channel(request.value)
    request.service(ReplyRoute).route_replies(channel)
    yield
    request.record(RepliesHanded(texts=list(channel.handed)))


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
        )
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    reply = case.field(FIELD)
    if reply is None:
        return []
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


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [TrialFixture(name="integration-reply", field=FIELD, run=_channel, needs=(ReplyRoute,))]
