"""Native admission on the real database (SQLite and PostgreSQL): each refusal leaves no Run
behind and records its stable code on the inbox row outside the rolled-back transaction; two
claimers racing for one event on a real SQLite file (one connection each, as separate workers)
admit it exactly once (the same race on PostgreSQL: test_postgres_store.py).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.native import admission
from agent_runtime.native.accounts import AccountAuthority
from agent_runtime.native.admission import LEASE_LOST, ROUTE_CHANGED, Admitted, Refused, admit
from agent_runtime.native.inbox import InboxClaim, InboxClaimRefusedError, NativeInbox
from agent_runtime.native.routes import NativeRoutes, Route
from agent_runtime.store.database import Connection
from agent_runtime.store.storage import StoreTemplate, connect, migrate
from runtime_doubles import ACCOUNT, DESTINATION, ROUTINE, approve_and_route, lease_taken_over


def _count(conn: Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def observe(conn: Connection, event_id: str) -> dict[str, Any]:
    """The admission rows, and the inbox row's correlation and error."""
    event = NativeInbox(conn).get(event_id)
    run = conn.execute("SELECT id FROM runs WHERE source = ?", (admission.SOURCE,)).fetchone()
    inbox_run = event.run_id if event is not None else None
    return {
        "runCount": _count(conn, "runs"),
        "stateCount": _count(conn, "states"),
        "artifactCount": _count(conn, "request_artifacts"),
        "invocationCount": _count(conn, "routine_invocations"),
        "inboxRunId": inbox_run,
        "inboxCorrelated": inbox_run is not None and run is not None and inbox_run == run[0],
        "error": None if event is None else event.error_code,
    }


def seed(conn: Connection) -> str:
    approve_and_route(conn)
    return NativeInbox(conn).receive("github", DESTINATION, ACCOUNT, {"action": "opened"})


def admit_with_fault(conn: Connection, fault: str | None) -> dict[str, Any]:
    """Seed, claim, break one dependency, admit: the rows left behind."""
    event_id = seed(conn)
    claim = NativeInbox(conn).claim(event_id, owner="worker-a")
    if fault == "route_changed":
        NativeRoutes(conn).set(Route(DESTINATION, f"{ROUTINE}-v2", "support"))
    elif fault == "account_revoked":
        AccountAuthority(conn).set_status(ACCOUNT, "revoked")
    revoke = None
    if fault == "lease_lost":

        def revoke(_conn: Connection) -> None:
            NativeInbox(conn).revoke_claim(event_id)

    admit(conn, claim, on_run_inserted=revoke)
    return observe(conn, event_id)


@pytest.mark.parametrize(
    ("fault", "code"),
    [
        ("lease_lost", LEASE_LOST),
        ("route_changed", ROUTE_CHANGED),
        ("account_revoked", admission.APPROVAL_REQUIRED),
    ],
)
def test_every_fault_leaves_nothing_and_records_its_code(
    template: StoreTemplate, fault: str, code: str
) -> None:
    conn = template.fresh()
    seen = admit_with_fault(conn, fault)
    counts = [seen[k] for k in ("runCount", "stateCount", "artifactCount", "invocationCount")]
    assert counts == [0, 0, 0, 0]
    assert (seen["inboxRunId"], seen["error"]) == (None, code)
    assert conn.execute("SELECT COUNT(*) FROM conversations").fetchone()[0] == 0


def test_an_approved_event_is_admitted_whole(template: StoreTemplate) -> None:
    seen = admit_with_fault(template.fresh(), None)
    counts = [seen[k] for k in ("runCount", "stateCount", "artifactCount", "invocationCount")]
    assert counts == [1, 1, 1, 1] and seen["inboxCorrelated"] and seen["error"] is None


def test_an_account_the_authority_never_heard_of_is_refused_as_unknown(
    template: StoreTemplate,
) -> None:
    conn = template.fresh()
    approve_and_route(conn)
    inbox = NativeInbox(conn)
    event_id = inbox.receive("github", DESTINATION, "stranger", {"action": "opened"})
    refused = admit(conn, inbox.claim(event_id, owner="worker-a"))
    assert refused == Refused(
        admission.APPROVAL_REQUIRED, "account stranger is not known to the authority"
    )
    seen = observe(conn, event_id)
    assert (seen["runCount"], seen["inboxRunId"]) == (0, None)
    assert seen["error"] == admission.APPROVAL_REQUIRED


def test_an_event_for_a_destination_nobody_routed_is_refused_and_not_stored(
    template: StoreTemplate,
) -> None:
    """The inbox stores an event under its route's Routine: without a route there is nothing
    an admission could start, so the channel's delivery is refused, naming the destination."""
    conn = template.fresh()
    approve_and_route(conn)
    with pytest.raises(LookupError, match="no native route for destination eval/elsewhere#7"):
        NativeInbox(conn).receive("github", "eval/elsewhere#7", ACCOUNT, {"action": "opened"})
    assert _count(conn, "native_inbox") == 0


def test_an_unclaimed_event_is_never_admitted(template: StoreTemplate) -> None:
    conn = template.fresh()
    event_id = seed(conn)
    inbox = NativeInbox(conn)
    forged = InboxClaim(event_id, "nobody", fence=1)  # never claimed: the fence is still 0
    assert isinstance(admit(conn, forged), Refused)
    assert observe(conn, event_id)["inboxRunId"] is None
    claim = inbox.claim(event_id, "worker")
    assert isinstance(admit(conn, claim), Admitted)
    assert observe(conn, event_id)["error"] is None  # the refused forgery's note is cleared
    with pytest.raises(InboxClaimRefusedError):  # an admitted event is never claimed again
        inbox.claim(event_id, "another", ttl=0.0)


# -- two workers, one file database ---------------------------------------------------------


def seeded(path: Path) -> str:
    conn = connect(str(path))
    migrate(conn)
    event_id = seed(conn)
    conn.close()
    return event_id


def assert_admitted_once(path: Path, event_id: str) -> None:
    conn = connect(str(path))
    seen = observe(conn, event_id)
    conn.close()
    counts = [seen[k] for k in ("runCount", "stateCount", "artifactCount", "invocationCount")]
    assert counts == [1, 1, 1, 1], seen
    assert seen["inboxCorrelated"] is True
    assert seen["error"] is None


def test_two_threads_race_to_claim_and_exactly_one_admits(tmp_path: Path) -> None:
    database = tmp_path / "runtime.db"
    event_id = seeded(database)
    barrier = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def worker(owner: str) -> None:
        conn = connect(str(database))
        try:
            barrier.wait()
            try:
                claim = NativeInbox(conn).claim(event_id, owner)
            except InboxClaimRefusedError as refused:
                outcomes[owner] = refused
                return
            outcomes[owner] = admit(conn, claim)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    admitted = [o for o in outcomes.values() if isinstance(o, Admitted)]
    fenced = [o for o in outcomes.values() if isinstance(o, InboxClaimRefusedError)]
    assert (len(admitted), len(fenced)) == (1, 1), outcomes
    assert_admitted_once(database, event_id)


def test_a_claimer_whose_lease_was_taken_over_is_fenced_out(tmp_path: Path) -> None:
    database = tmp_path / "runtime.db"
    event_id = seeded(database)
    slow, fast = connect(str(database)), connect(str(database))
    try:
        stale = NativeInbox(slow).claim(event_id, "slow", ttl=0.0)  # expires at once
        fresh = NativeInbox(fast).claim(event_id, "fast")
        assert fresh.fence == stale.fence + 1
        assert isinstance(admit(fast, fresh), Admitted)
        late = admit(slow, stale)
        assert isinstance(late, Refused)
        assert late.code == admission.LEASE_LOST
    finally:
        slow.close()
        fast.close()
    assert_admitted_once(database, event_id)


def test_a_stale_claimer_admitting_first_is_fenced_out_of_its_own_transaction(
    tmp_path: Path,
) -> None:
    """The lease moves after the stale claimer's Run exists: nothing of it survives."""
    database = tmp_path / "runtime.db"
    event_id = seeded(database)
    slow, fast = connect(str(database)), connect(str(database))
    try:
        stale = NativeInbox(slow).claim(event_id, "slow")
        late = admit(slow, stale, on_run_inserted=lease_taken_over(slow, event_id))
        assert isinstance(late, Refused) and late.code == admission.LEASE_LOST
        seen = observe(fast, event_id)
        assert [seen["runCount"], seen["inboxRunId"], seen["error"]] == [
            0,
            None,
            admission.LEASE_LOST,
        ]
    finally:
        slow.close()
        fast.close()


def test_the_admitted_run_carries_the_bundle_its_route_pinned() -> None:
    """What the approval pinned is what the Run runs: the Run row holds the route's bundle,
    and a route that pins none admits a Run without one."""
    conn = connect()
    migrate(conn)
    pinned = {"digest": "d" * 64, "routineId": "routine-1", "routineVersion": 3}
    event_id = seed(conn)
    NativeRoutes(conn).set(Route(DESTINATION, ROUTINE, "support", "eval", pinned))
    assert NativeRoutes(conn).get(DESTINATION) == Route(
        DESTINATION, ROUTINE, "support", "eval", pinned
    )
    admitted = admit(conn, NativeInbox(conn).claim(event_id, owner="worker-a"))
    assert isinstance(admitted, Admitted)
    row = conn.execute("SELECT bundle FROM runs WHERE id = ?", (admitted.run_id,)).fetchone()
    assert json.loads(row[0]) == pinned
    bare = connect()
    migrate(bare)
    admitted = admit(bare, NativeInbox(bare).claim(seed(bare), owner="worker-a"))
    assert isinstance(admitted, Admitted)
    row = bare.execute("SELECT bundle FROM runs WHERE id = ?", (admitted.run_id,)).fetchone()
    assert row[0] is None


def test_a_revoked_claim_goes_back_to_the_queue_and_only_there(template: StoreTemplate) -> None:
    """The operator's revocation moves the fence (the first worker's admission is refused as a
    lost lease) and puts the event back for the next worker, who admits it (left claimed
    without a lease, it was stranded: no claim could take it again). An admitted or refused
    event is not revived by one."""
    conn = template.fresh()
    event_id = seed(conn)
    inbox = NativeInbox(conn)
    first = inbox.claim(event_id, owner="worker-a")
    inbox.revoke_claim(event_id)
    assert isinstance(admit(conn, first), Refused)
    second = inbox.claim(event_id, owner="worker-b")
    assert isinstance(admit(conn, second), Admitted)
    inbox.revoke_claim(event_id)  # too late: the event is admitted
    event = inbox.get(event_id)
    assert event is not None and (event.status, event.error_code) == ("admitted", None)

    other = NativeInbox(conn).receive("github", DESTINATION, "stranger", {"action": "opened"})
    assert isinstance(admit(conn, inbox.claim(other, owner="worker-a")), Refused)
    inbox.revoke_claim(other)
    refused = inbox.get(other)
    assert refused is not None and refused.status == "refused"
