"""The native channel's test seam: delivered events claimed and admitted as the worker does,
with host state moving where production lets it move (between the claim and admission,
inside admission's transaction) and a second worker claiming an event again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agent_runtime.native import admission
from agent_runtime.native.inbox import InboxClaimRefusedError, NativeInbox
from agent_runtime.store.database import Connection

Action = Callable[[], None]


@dataclass
class Delivery:
    """An event in the durable inbox and what happens around its admission."""

    event_id: str
    after_claim: list[Action] = field(default_factory=list)
    during_admission: list[Action] = field(default_factory=list)
    claimed_again: bool = False


def admit_all(conn: Connection, deliveries: Sequence[Delivery]) -> None:
    """The worker claims each delivered event and lets the runtime admit it; then, for each
    event ``claimed_again``, a second worker tries to claim it (a redelivery, a stale listing
    of the queue) and, when the inbox lets it, goes on to admit it."""
    inbox = NativeInbox(conn)
    for delivery in deliveries:
        claim = inbox.claim(delivery.event_id, owner="worker-a")
        for action in delivery.after_claim:
            action()
        hooks = delivery.during_admission

        def during(_conn: Connection, hooks: Sequence[Action] = hooks) -> None:
            for hook in hooks:
                hook()

        admission.admit(conn, claim, on_run_inserted=during if hooks else None)
    for delivery in deliveries:
        if not delivery.claimed_again:
            continue
        try:
            again = inbox.claim(delivery.event_id, owner="worker-b")
        except InboxClaimRefusedError:
            continue  # the inbox held the admitted event: nothing more to do
        admission.admit(conn, again)
