"""The native family's fixture: a native event delivered to the Host's durable inbox, admitted by
the Host's worker, and the rows admission left read back.

The fixture plays the operator and the channel: it approves the account and routes the
destination to the Routine for the participant ``eval`` (host state), delivers the GitHub
``issues.opened`` event ``eval-native-event`` claiming an approved sender (only the authority
knows), and breaks one dependency when the Case's ``fault`` says so: the account was never
approved (the authority has no row of it), the route changes or the account is revoked between
the claim and admission, or the operator takes the claim back from the worker while admission's
transaction is open, or a second worker tries to claim the event once it was admitted (a
redelivery, a stale queue listing).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import msgspec

from eval_core.kinds import FixtureRequest, TrialFixture
from eval_core.records import Admission, NativeEvent, NativeRoute
from eval_expectations_native.fixture import NativeRoutine
from eval_expectations_native.observation import NativeAdmission

CHANNEL = "github"
ROUTINE = "eval-native-review"
CHANGED_ROUTINE = "eval-native-review-v2"
ROUTINE_IDS = {
    ROUTINE: "eb8b34d6-a1b9-45e1-b51f-22a30749e042",
    CHANGED_ROUTINE: "5d0c1f8e-7a42-4b6e-9a3d-2f1e8c4b7a90",
}
"""The published id of each Routine the fixture routes to (the original's fixture Routine's)."""
OWNER = "eval"
"""The person who approved the route (the participant every Trial acts for)."""
EVENT_ID = "eval-native-event"
EVENT_TYPE = "issues.opened"


class NativeChannel(Protocol):
    """The Host's native channel: operator state, the durable inbox, and admission's seams."""

    def set_account(self, account_id: str, status: str) -> None: ...

    def set_route(self, route: NativeRoute) -> None: ...

    def deliver(self, event: NativeEvent) -> str: ...

    def after_claim(self, event_id: str, action: Callable[[], None]) -> None: ...

    def during_admission(self, event_id: str, action: Callable[[], None]) -> None: ...

    def revoke_claim(self, event_id: str) -> None: ...

    def claim_again(self, event_id: str) -> None: ...

    def admission(self, event_id: str) -> Admission: ...


def issue_event(destination: str, account_id: str, text: str) -> dict[str, Any]:
    """What the channel delivers: it claims an approved sender; only the authority knows."""
    repo, _, number = destination.partition("#")
    return {
        "action": "opened",
        "repository": {"full_name": repo},
        "issue": {"number": int(number) if number.isdigit() else number, "body": text},
        "sender": {"account": {"id": account_id, "status": "approved"}},
    }


def bundle(routine: str) -> dict[str, Any]:
    """The published bundle of a fixture Routine the operator's route approval pins: its id,
    version and the digest of what was published."""
    published = {"id": ROUTINE_IDS[routine], "slug": routine, "version": 1}
    text = json.dumps(published, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()
    return {"digest": digest, "routineId": ROUTINE_IDS[routine], "routineVersion": 1}


def route(destination: str, routine: str, agent: str) -> NativeRoute:
    """The route the operator (``eval``) approved: ``destination`` runs ``routine``, pinned."""
    return NativeRoute(
        destination=destination, routine=routine, agent=agent, owner=OWNER, bundle=bundle(routine)
    )


def _admission(request: FixtureRequest) -> Iterator[None]:
    block: NativeRoutine = request.value
    case = request.case
    channel = request.service(NativeChannel)
    if block.fault != "account_unknown":
        channel.set_account(block.account_id, "approved")
    channel.set_route(route(block.destination, ROUTINE, case.agent))
    text = "\n".join(m.text for m in case.input)
    event = channel.deliver(
        NativeEvent(
            channel=CHANNEL,
            destination=block.destination,
            account_id=block.account_id,
            payload=issue_event(block.destination, block.account_id, text),
            event_id=EVENT_ID,
            event_type=EVENT_TYPE,
        )
    )
    if block.fault == "route_changed":
        channel.after_claim(
            event,
            lambda: channel.set_route(route(block.destination, CHANGED_ROUTINE, case.agent)),
        )
    elif block.fault == "account_revoked":
        channel.after_claim(event, lambda: channel.set_account(block.account_id, "revoked"))
    elif block.fault == "lease_lost":
        channel.during_admission(event, lambda: channel.revoke_claim(event))
    elif block.fault == "claimed_again":
        channel.claim_again(event)
    elif block.fault == "claim_revoked":  # committed before admission, as an operator's is
        channel.after_claim(event, lambda: channel.revoke_claim(event))
        channel.claim_again(event)
    yield
    rows = channel.admission(event)
    request.record(msgspec.convert(rows, NativeAdmission, from_attributes=True))


FIXTURE = TrialFixture(
    name="native-admission", field="native_routine", run=_admission, needs=(NativeChannel,)
)
