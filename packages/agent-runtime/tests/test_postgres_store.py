"""The PostgreSQL store on a real server: its migrations, its clones, and the paths whose
correctness is the database's locking, raced by real connections (one per worker, as separate
worker processes would hold them).

The race runs 100 times in a bounded loop; each worker's claim must be decided by the database
(``FOR UPDATE SKIP LOCKED``, the fence's conditional UPDATE), never by a read before a write.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agent_runtime.durable.executor import start_turn
from agent_runtime.durable.runs import ClaimRefusedError, Lease, RunStore, StaleGenerationError
from agent_runtime.native import admission
from agent_runtime.native.admission import Admitted, Refused, admit
from agent_runtime.native.inbox import InboxClaimRefusedError, NativeInbox
from agent_runtime.store import postgres
from agent_runtime.store.postgres import PostgresConnection, PostgresTemplate
from agent_runtime.store.storage import MIGRATIONS, StoreError, Template, migrate, open_template
from runtime_doubles import ACCOUNT, DESTINATION, approve_and_route, lease_taken_over

RACES = 100


@pytest.fixture(scope="module")
def template(postgres_url: str) -> Iterator[PostgresTemplate]:
    made = PostgresTemplate(postgres_url)
    yield made
    made.close()


def worker(template: PostgresTemplate, conn: PostgresConnection) -> PostgresConnection:
    """Another worker's own connection to the same database."""
    return postgres.connect(template.url, conn.database)


def race(
    first: Callable[[int], object], second: Callable[[int], object], rounds: int
) -> list[tuple[object, object]]:
    """Run ``first(i)`` and ``second(i)`` at once (a barrier apart), ``rounds`` times."""
    barrier = threading.Barrier(2, timeout=10)
    results: list[list[object]] = [[None, None] for _ in range(rounds)]

    def run(slot: int, attempt: Callable[[int], object]) -> None:
        for i in range(rounds):
            barrier.wait()
            try:
                results[i][slot] = attempt(i)
            except Exception as refused:
                results[i][slot] = refused

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate((first, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return [(a, b) for a, b in results]


def count(conn: PostgresConnection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_migrations_apply_once_in_the_dialects_own_types(postgres_url: str) -> None:
    admin = postgres.connect(postgres_url)
    name = f"eval_migrate_{uuid.uuid4().hex[:8]}"
    admin.raw.execute(f"CREATE DATABASE {name}")
    try:
        conn = postgres.connect(postgres_url, name)
        assert migrate(conn) == [m[0] for m in MIGRATIONS]
        assert migrate(conn) == []
        names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY version")]
        assert names == [m[1] for m in MIGRATIONS]
        kind = conn.execute(
            "SELECT data_type FROM information_schema.columns "
            "WHERE table_name = 'file_blobs' AND column_name = 'data'"
        ).fetchone()[0]
        assert kind == "bytea"  # written once as BLOB, spoken as PostgreSQL's own type
        conn.close()
    finally:
        admin.raw.execute(f"DROP DATABASE {name} WITH (FORCE)")
        admin.close()


def test_each_clone_is_its_own_database_and_is_dropped_on_release(
    template: PostgresTemplate, postgres_cluster: Any
) -> None:
    first, second = template.fresh(), template.fresh()
    assert first.database != second.database
    RunStore(first).start_conversation("support")
    assert count(first, "conversations") == 1 and count(second, "conversations") == 0
    for conn in (first, second):
        template.release(conn)
    deadline = time.monotonic() + 10
    while {first.database, second.database} & set(postgres_cluster.databases()):
        assert time.monotonic() < deadline, "a released clone was never dropped"
        time.sleep(0.05)


def test_clones_handed_out_at_once_are_each_their_own(template: PostgresTemplate) -> None:
    handed: list[PostgresConnection] = []
    threads = [threading.Thread(target=lambda: handed.append(template.fresh())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len({conn.database for conn in handed}) == 4
    for conn in handed:
        template.release(conn)


def test_a_session_reopened_after_a_crash_mid_statement_sees_no_lock_of_the_dead_one(
    template: PostgresTemplate,
) -> None:
    """A process dies mid-statement, holding a row lock: its backend runs on until the
    statement ends, and only then lets the lock go. The restarted process's session is handed
    back once that backend is gone, so its first claim (``FOR UPDATE SKIP LOCKED``) finds the
    row, not a lock of a process that no longer exists."""
    conn = template.fresh()
    conversation = RunStore(conn).start_conversation("support")
    dying = conn.raw.info.backend_pid
    conn.raw.pgconn.send_query(
        b"BEGIN; SELECT id FROM conversations FOR UPDATE; SELECT pg_sleep(0.5)"
    )
    time.sleep(0.1)  # the server has taken the lock and sleeps
    fresh = template.reopen(conn)
    try:
        gone = fresh.raw.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (dying,))
        assert gone.fetchone() is None
        with fresh.raw.transaction():
            claimed = fresh.raw.execute("SELECT id FROM conversations FOR UPDATE SKIP LOCKED")
            assert [row[0] for row in claimed.fetchall()] == [conversation]
    finally:
        template.release(fresh)


def test_a_template_dropped_from_under_it_refuses_the_next_clone_and_still_closes(
    postgres_url: str, postgres_cluster: Any
) -> None:
    """A template someone else dropped (an operator clearing the cluster's eval_* databases)
    makes the next clone fail: that store is refused as a StoreError naming the server and the
    server's reason, never handed out as nothing; closing the template then raises nothing (the
    failed clone ahead is no error of the close) and drops every clone it had handed out."""
    made = PostgresTemplate(postgres_url)
    admin = postgres.connect(postgres_url)
    handed: list[PostgresConnection] = []
    try:
        admin.raw.execute(f'DROP DATABASE "{made.name}"')
        with pytest.raises(StoreError) as refused:
            for _ in range(3):  # the clone made ahead may have been made before the drop
                handed.append(made.fresh())
        message = str(refused.value)
        assert message.startswith(f"{made.where}: cannot clone the template: "), message
        assert f'"{made.name}" does not exist' in message, message
        made.close()
        left = {conn.database for conn in handed} & set(postgres_cluster.databases())
        assert not left, f"clones left behind: {left}"
    finally:
        admin.close()


def test_text_sorts_by_byte_as_sqlite_sorts_it(template: PostgresTemplate) -> None:
    conn = template.fresh()
    names = ["b", "B", "a", "_x", "Z", "é", "a-b", "a_b"]
    for name in names:
        conn.execute("INSERT INTO native_accounts (id, status) VALUES (?, 'approved')", (name,))
    stored = [r[0] for r in conn.execute("SELECT id FROM native_accounts ORDER BY id")]
    assert stored == sorted(names, key=lambda n: n.encode())
    template.release(conn)


def test_a_percent_sign_means_what_it_means_to_sqlite(template: PostgresTemplate) -> None:
    """The store speaks SQLite's dialect on both: ``?`` is a parameter, and a ``%`` in a
    statement (the modulo operator, a LIKE pattern's wildcard) reaches the server as written,
    so the same statement reads the same rows on both stores."""
    statement = "SELECT id, 17 % 5 FROM native_accounts WHERE id LIKE 'bulbs%' ORDER BY id"
    read = []
    sqlite = Template()
    for store in (template, sqlite):
        conn = store.fresh()
        for name in ("bulbs-7", "tulips", "bulbs-12", "crocus-bulbs"):
            conn.execute("INSERT INTO native_accounts (id, status) VALUES (?, 'approved')", (name,))
        read.append([tuple(row) for row in conn.execute(statement)])
        store.release(conn)
    sqlite.close()
    assert read[0] == read[1] == [("bulbs-12", 2), ("bulbs-7", 2)]


def test_a_store_that_cannot_be_used_is_one_line_without_its_password(postgres_url: str) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"postgresql://eval:s3cret@127.0.0.1:{probe.getsockname()[1]}/postgres"
    for url, words in [
        ("postgresql://eval:s3cret@[::1/x", "malformed"),
        (closed, "cannot connect"),
        ("mysql://eval:s3cret@127.0.0.1/x", "not a store: expected sqlite or a postgresql://"),
        (postgres_url.replace("eval_sweep", "nobody"), 'role "nobody" does not exist'),
    ]:
        with pytest.raises(StoreError) as refused:
            open_template(url)
        message = str(refused.value)
        assert words in message and "s3cret" not in message and "\n" not in message, message


def test_a_refusal_names_the_server_it_tried_as_libpq_reached_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The operator reads where the store was looked for: the URL's host and port (over
    ``PGPORT``, as libpq takes it), and the port libpq took from ``PGPORT`` when the URL gives
    none."""
    with socket.socket() as probe, socket.socket() as other:  # two ports nothing listens on
        probe.bind(("127.0.0.1", 0))
        other.bind(("127.0.0.1", 0))
        port, environment_port = probe.getsockname()[1], other.getsockname()[1]
    for url, environment, tried in (
        (f"postgresql://eval@127.0.0.1:{port}/postgres", port, port),
        (f"postgresql://eval@127.0.0.1:{port}/postgres", environment_port, port),
        ("postgresql://eval@127.0.0.1/postgres", environment_port, environment_port),
    ):
        monkeypatch.setenv("PGPORT", str(environment))
        with pytest.raises(StoreError) as refused:
            open_template(url)
        where = f"postgresql://eval@127.0.0.1:{tried}/postgres: cannot connect"
        assert str(refused.value).startswith(where), refused.value


def test_a_refusal_names_the_hostaddr_of_a_url_that_names_no_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A URL may give the server's address alone (``hostaddr``, no host name): libpq connects
    to that address, and the refusal names it, not a default."""
    monkeypatch.delenv("PGHOST", raising=False)
    monkeypatch.delenv("PGHOSTADDR", raising=False)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(StoreError) as refused:
        open_template(f"postgresql://eval@:{port}/postgres?hostaddr=127.0.0.1")
    where = f"postgresql://eval@127.0.0.1:{port}/postgres: cannot connect"
    assert str(refused.value).startswith(where), refused.value


def test_a_refusal_names_the_pghost_of_a_url_that_names_no_host_else_this_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A URL may name no server at all: libpq then reaches for ``PGHOST`` (an operator's usual
    way to point every tool at the database host), and the refusal names that server; with no
    ``PGHOST`` either it is this machine."""
    monkeypatch.delenv("PGHOSTADDR", raising=False)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("PGPORT", str(port))
    for environment, tried in (("127.0.0.1", "127.0.0.1"), (None, "localhost")):
        if environment is None:
            monkeypatch.delenv("PGHOST", raising=False)
        else:
            monkeypatch.setenv("PGHOST", environment)
        with pytest.raises(StoreError) as refused:
            open_template("postgresql://eval@/postgres")
        where = f"postgresql://eval@{tried}:{port}/postgres: cannot connect"
        assert str(refused.value).startswith(where), refused.value


def test_a_refusal_names_the_role_of_the_url_else_of_pguser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The role the operator reads is the URL's, else the one libpq took from ``PGUSER``; with
    neither, none is named."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for url, environment, role in (
        (f"postgresql://eval@127.0.0.1:{port}/postgres", "operator", "eval@"),
        (f"postgresql://127.0.0.1:{port}/postgres", "operator", "operator@"),
        (f"postgresql://127.0.0.1:{port}/postgres", None, ""),
    ):
        if environment is None:
            monkeypatch.delenv("PGUSER", raising=False)
        else:
            monkeypatch.setenv("PGUSER", environment)
        with pytest.raises(StoreError) as refused:
            open_template(url)
        where = f"postgresql://{role}127.0.0.1:{port}/postgres: cannot connect"
        assert str(refused.value).startswith(where), refused.value


# -- races, one connection per worker -----------------------------------------------------


def test_100_races_for_one_inbox_event_each_admit_it_exactly_once(
    template: PostgresTemplate,
) -> None:
    conn = template.fresh()
    approve_and_route(conn)
    inbox = NativeInbox(conn)
    events = [inbox.receive("github", DESTINATION, ACCOUNT, {"n": i}) for i in range(RACES)]
    a, b = worker(template, conn), worker(template, conn)

    def claim_and_admit(conn: PostgresConnection, owner: str) -> Callable[[int], object]:
        return lambda i: admit(conn, NativeInbox(conn).claim(events[i], owner))

    outcomes = race(claim_and_admit(a, "a"), claim_and_admit(b, "b"), RACES)
    for i, pair in enumerate(outcomes):
        admitted = [o for o in pair if isinstance(o, Admitted)]
        fenced = [o for o in pair if isinstance(o, InboxClaimRefusedError)]
        assert (len(admitted), len(fenced)) == (1, 1), (i, pair)
    assert [count(conn, t) for t in ("runs", "states", "routine_invocations")] == [RACES] * 3
    correlated = conn.execute(
        "SELECT COUNT(*) FROM native_inbox i JOIN routine_invocations r "
        "ON r.inbox_id = i.id AND r.run_id = i.run_id WHERE i.status = 'admitted'"
    ).fetchone()[0]
    assert correlated == RACES
    for c in (a, b):
        c.close()
    template.release(conn)


def test_100_races_for_one_state_give_exactly_one_lease(template: PostgresTemplate) -> None:
    conn = template.fresh()
    store = RunStore(conn)
    conversation = store.start_conversation("support")
    runs = [start_turn(store, conversation, i, []) for i in range(RACES)]
    a, b = RunStore(worker(template, conn)), RunStore(worker(template, conn))
    outcomes = race(lambda i: a.claim(runs[i], "a"), lambda i: b.claim(runs[i], "b"), RACES)
    for i, pair in enumerate(outcomes):
        leases = [o for o in pair if isinstance(o, Lease)]
        refused = [o for o in pair if isinstance(o, ClaimRefusedError)]
        assert (len(leases), len(refused)) == (1, 1), (i, pair)
        assert leases[0].generation == 1
    for s in (a, b):
        s.conn.close()
    template.release(conn)


def test_a_claim_never_takes_a_state_whose_worker_is_mid_write(template: PostgresTemplate) -> None:
    """An expired lease is not enough: while the old worker's write is in flight (it holds the
    State's row through the fence), a claimer is refused at once, never queued behind it; once
    the write commits, the claim bumps the generation and the old worker's next write is
    refused."""
    conn = template.fresh()
    now = [1000.0]
    slow = RunStore(conn, clock=lambda: now[0])
    conversation = slow.start_conversation("support")
    run = start_turn(slow, conversation, 1, [])
    stale = slow.claim(run, "slow", ttl=1)
    fast = RunStore(worker(template, conn), clock=lambda: now[0])
    now[0] += 5  # the slow worker's lease has expired
    conn.execute("BEGIN")
    slow.append_event(stale, 1, "tool.call", {}, "runtime")  # fenced: holds the State's row
    started = time.monotonic()
    with pytest.raises(ClaimRefusedError, match="held by another worker's transaction"):
        fast.claim(run, "fast")
    assert time.monotonic() - started < 1.0  # skipped, not waited for
    conn.execute("COMMIT")
    fresh = fast.claim(run, "fast")
    assert fresh.generation == stale.generation + 1
    with pytest.raises(StaleGenerationError, match="carries generation 1, the State is at 2"):
        slow.append_event(stale, 2, "text.delta", {}, "agent")
    fast.settle(fresh, "succeeded", None)
    assert [e[1] for e in slow.events(run.run_id)] == ["tool.call"]
    assert slow.statuses(run)[:3] == ("succeeded", "succeeded", "succeeded")
    fast.conn.close()
    template.release(conn)


def test_a_claimer_whose_lease_was_taken_over_is_fenced_out_of_admission(
    template: PostgresTemplate,
) -> None:
    conn = template.fresh()
    approve_and_route(conn)
    event_id = NativeInbox(conn).receive("github", DESTINATION, ACCOUNT, {})
    slow, fast = worker(template, conn), worker(template, conn)
    stale = NativeInbox(slow).claim(event_id, "slow", ttl=0.0)  # expires at once
    fresh = NativeInbox(fast).claim(event_id, "fast")
    assert fresh.fence == stale.fence + 1
    assert isinstance(admit(fast, fresh), Admitted)
    late = admit(slow, stale)
    assert isinstance(late, Refused) and late.code == admission.LEASE_LOST
    assert [count(conn, t) for t in ("runs", "states", "request_artifacts")] == [1, 1, 1]
    assert NativeInbox(conn).get(event_id).error_code is None  # type: ignore[union-attr]
    for c in (slow, fast):
        c.close()
    template.release(conn)


def test_a_stale_claimer_admitting_first_leaves_nothing_of_its_transaction(
    template: PostgresTemplate,
) -> None:
    """Another worker takes the lease while the stale claimer's admission is mid-transaction:
    the fenced correlation refuses it and nothing it wrote survives."""
    conn = template.fresh()
    approve_and_route(conn)
    event_id = NativeInbox(conn).receive("github", DESTINATION, ACCOUNT, {})
    slow = worker(template, conn)
    stale = NativeInbox(slow).claim(event_id, "slow")
    late = admit(slow, stale, on_run_inserted=lease_taken_over(slow, event_id))
    assert isinstance(late, Refused) and late.code == admission.LEASE_LOST
    assert count(conn, "runs") == 0 and count(conn, "conversations") == 0
    event = NativeInbox(conn).get(event_id)
    assert event is not None and (event.run_id, event.error_code) == (None, admission.LEASE_LOST)
    slow.close()
    template.release(conn)
