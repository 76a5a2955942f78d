"""The outbox family: a Tool that sends a message, implemented by this family's fixture, and
the mailbox it fills, read back after the Trial.

A Case sets ``outbox: {"tool": "send_message"}`` and declares that Tool; the fixture registers
the Tool's implementation with the Host's Tool registry (so the runtime's real loop, guards and
allowlist decide whether it runs), keeps what it sent in a mailbox, and puts the mailbox into
Evidence. ``outbox_message_sent {to, subjectContains}`` and ``outbox_empty {}`` score it.
It uses only ``eval_core``'s public contract: no change to the core or to the runtime.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

import msgspec

from eval_core._case.case import CaseBase, CaseField
from eval_core._case.evidence import Evidence
from eval_core._case.kinds import Expectation, KindSpec, Verdict, failed, passed
from eval_core._plugins.fixtures import FixtureRequest, TrialFixture
from eval_core._plugins.hookspecs import hookimpl
from eval_core._plugins.host import LoadContext


class Outbox(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``outbox`` Case field: which declared Tool sends a message."""

    tool: str


class Sent(msgspec.Struct, frozen=True, kw_only=True):
    to: str
    subject: str
    body: str


class Mailbox(msgspec.Struct, frozen=True, kw_only=True):
    """What the outbox holds once the Trial ended."""

    sent: list[Sent]


class ToolRegistry(Protocol):
    """The Host's registry of fixture Tools."""

    def register(self, name: str, handler: Callable[[Any], Any]) -> None: ...


def _outbox(request: FixtureRequest) -> Iterator[None]:
    sent: list[Sent] = []

    def send(arguments: Any) -> Any:
        args = arguments if isinstance(arguments, dict) else {}
        to, subject = args.get("to"), args.get("subject")
        if not isinstance(to, str) or "@" not in to or not isinstance(subject, str):
            raise ValueError("a message needs an address 'to' and a 'subject'")
        sent.append(Sent(to=to, subject=subject, body=str(args.get("body", ""))))
        return {"messageId": f"msg-{len(sent)}", "queued": True}

    request.service(ToolRegistry).register(request.value.tool, send)
    yield
    request.record(Mailbox(sent=list(sent)))


class OutboxMessageSent(Expectation, tag="outbox_message_sent", frozen=True):
    to: str
    subject_contains: str


class OutboxEmpty(Expectation, tag="outbox_empty", frozen=True):
    pass


def _score_sent(e: OutboxMessageSent, ev: Evidence) -> Verdict:
    mailbox = ev.record(Mailbox)
    if mailbox is None:
        return failed("no outbox was read back")
    for message in mailbox.sent:
        if message.to == e.to and e.subject_contains in message.subject:
            return passed(f"sent to {message.to}: {message.subject!r}")
    seen = ", ".join(f"{m.to}: {m.subject!r}" for m in mailbox.sent) or "nothing"
    return failed(f"no message to {e.to} with {e.subject_contains!r} in its subject; sent: {seen}")


def _score_empty(_e: OutboxEmpty, ev: Evidence) -> Verdict:
    mailbox = ev.record(Mailbox)
    if mailbox is None:
        return failed("no outbox was read back")
    if mailbox.sent:
        return failed(f"{len(mailbox.sent)} message(s) left: first to {mailbox.sent[0].to}")
    return passed("the outbox is empty")


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=OutboxMessageSent, scorer=_score_sent, seam_independent=True, witness="tool"
        ),
        KindSpec(struct=OutboxEmpty, scorer=_score_empty, seam_independent=True, witness="tool"),
    ]


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [CaseField(name="outbox", type=Outbox, description="{tool}: the Tool that sends.")]


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [TrialFixture(name="mailbox", field="outbox", run=_outbox, needs=(ToolRegistry,))]


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """The sending Tool is declared by the Case; the outbox kinds need an outbox."""
    outbox = case.field("outbox")
    problems: list[tuple[str, str]] = []
    if outbox is not None and outbox.tool not in {t.name for t in case.tools}:
        problems.append(("$.outbox.tool", f"{outbox.tool!r} is not a Tool this Case declares"))
    if outbox is None:
        problems.extend(
            (f"$.expect[{i}].kind", f"{e.kind_name} needs an 'outbox'")
            for i, e in enumerate(case.expect)
            if isinstance(e, OutboxMessageSent | OutboxEmpty)
        )
    return problems
