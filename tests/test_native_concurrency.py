"""Two claimers race for one native inbox event on a real SQLite file database.

Each claimer has its own connection, as separate workers would. Exactly one admits the event;
the other is fenced out (its claim refused, or its admission refused by the fence); nothing is
duplicated: one Run, one State, one request Artifact, one invocation, the inbox row correlated.
"""

from __future__ import annotations

import threading
from pathlib import Path

from agent_runtime import admission
from agent_runtime.accounts import AccountAuthority
from agent_runtime.admission import Admitted, Refused, admit
from agent_runtime.native_inbox import InboxClaimRefusedError, NativeInbox
from agent_runtime.native_routes import NativeRoutes, Route
from agent_runtime.native_trial import observe
from agent_runtime.storage import connect, migrate

DESTINATION = "eval/native#42"
ACCOUNT = "approved-native-account"


def seeded(path: Path) -> str:
    conn = connect(str(path))
    migrate(conn)
    AccountAuthority(conn).set_status(ACCOUNT, "approved")
    NativeRoutes(conn).set(Route(DESTINATION, "native-issue-triage", "support"))
    event_id = NativeInbox(conn).receive("github", DESTINATION, ACCOUNT, {"action": "opened"})
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

        def taken_over(_conn: object) -> None:
            slow.execute(
                "UPDATE native_inbox SET fence = fence + 1, lease_owner = 'fast' WHERE id = ?",
                (event_id,),
            )

        late = admit(slow, stale, on_run_inserted=taken_over)
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
