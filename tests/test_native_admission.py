"""Native admission on the real database, one refusal at a time: each leaves no Run behind and
records its stable code on the inbox row, outside the rolled-back transaction."""

from __future__ import annotations

import pytest

from agent_runtime.admission import LEASE_LOST, ROUTE_CHANGED, Admitted, Refused, admit
from agent_runtime.native_inbox import InboxClaim, InboxClaimRefusedError, NativeInbox
from agent_runtime.native_trial import observe, run_native_admission
from agent_runtime.storage import Template

DESTINATION = "eval/native#42"
ACCOUNT = "approved-native-account"


@pytest.fixture(scope="module")
def template() -> Template:
    return Template()


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        ("lease_lost", LEASE_LOST),
        ("route_changed", ROUTE_CHANGED),
        ("account_revoked", "native_account_revoked"),
    ],
)
def test_every_fault_leaves_nothing_and_records_its_code(
    template: Template, fault: str, code: str
) -> None:
    conn = template.fresh()
    seen = run_native_admission(
        conn, destination=DESTINATION, account_id=ACCOUNT, agent="support", text="x", fault=fault
    )
    counts = [seen[k] for k in ("runCount", "stateCount", "artifactCount", "invocationCount")]
    assert counts == [0, 0, 0, 0]
    assert (seen["inboxRunId"], seen["error"]) == (None, code)
    assert conn.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 0


def test_an_unclaimed_event_is_never_admitted(template: Template) -> None:
    conn = template.fresh()
    run_native_admission(
        conn, destination=DESTINATION, account_id=ACCOUNT, agent="support", text="x"
    )
    inbox = NativeInbox(conn)
    event_id = inbox.receive("github", DESTINATION, ACCOUNT, {"action": "opened"})
    forged = InboxClaim(event_id, "nobody", fence=1)  # never claimed: the fence is still 0
    assert isinstance(admit(conn, forged), Refused)
    assert observe(conn, event_id)["inboxRunId"] is None
    claim = inbox.claim(event_id, "worker")
    assert isinstance(admit(conn, claim), Admitted)
    assert observe(conn, event_id)["error"] is None  # the refused forgery's note is cleared
    with pytest.raises(InboxClaimRefusedError):  # an admitted event is never claimed again
        inbox.claim(event_id, "another", ttl=0.0)
