"""The durable store on real SQLite and real PostgreSQL: migrations, template copies, leases,
the generation fence, and crash safety of a pass that dies mid-Turn."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from agent_runtime.durable import executor as durable
from agent_runtime.durable.executor import LedgerExecutor, execute_pass, start_turn
from agent_runtime.durable.runs import (
    ClaimRefusedError,
    Lease,
    Minted,
    RunStore,
    StaleGenerationError,
)
from agent_runtime.model import ModelResponse, ToolCallRequest
from agent_runtime.soul.loader import Soul
from agent_runtime.store.storage import (
    MIGRATIONS,
    StoreTemplate,
    Template,
    atomic,
    connect,
    migrate,
    shown,
)
from agent_runtime.tools import ToolOutcome
from runtime_doubles import SHIPPED, ScriptedModel, ScriptedTools, platform, turn_request


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(template: StoreTemplate, clock: Clock) -> RunStore:
    return RunStore(template.fresh(), clock)


def minted(store: RunStore) -> tuple[str, Minted]:
    conversation = store.start_conversation("support")
    return conversation, start_turn(
        store, conversation, 1, [{"role": "user", "content": "Where is T-1?"}]
    )


def test_migrations_apply_once_and_are_recorded() -> None:
    conn = connect()
    assert migrate(conn) == [m[0] for m in MIGRATIONS]
    assert migrate(conn) == []
    names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY version")]
    assert names == [m[1] for m in MIGRATIONS]


def test_each_migration_is_recorded_under_a_name_of_its_own() -> None:
    """An operator reading ``schema_migrations`` is told what each recorded version made: every
    migration has a name, and no two share one."""
    names = [m[1] for m in MIGRATIONS]
    assert all(name.strip() for name in names), names
    assert len(set(names)) == len(names), names


def test_migration_numbers_run_from_one_without_a_gap() -> None:
    """A database already migrated is compared by these numbers: the first release's database
    records 1, so a migration keeps its number for ever and a new one takes the next."""
    assert [m[0] for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))


def test_a_sqlite_template_is_copied_for_trials_on_other_threads() -> None:
    """``eval sweep --jobs N`` runs Trials on worker threads: the template, migrated on the
    thread that loaded the Host, is copied on each of them."""
    template = Template()

    def trial(_: int) -> int:
        store = RunStore(template.fresh())
        minted(store)
        return store.run_count()

    try:
        with ThreadPoolExecutor(2) as pool:
            counts = list(pool.map(trial, range(4)))
    finally:
        template.close()
    assert counts == [1, 1, 1, 1]


def test_each_fresh_copy_shares_nothing(template: StoreTemplate) -> None:
    first = RunStore(template.fresh())
    minted(first)
    assert first.run_count() == 1
    assert RunStore(template.fresh()).run_count() == 0


def test_a_live_lease_refuses_a_second_claim_until_it_expires(
    store: RunStore, clock: Clock
) -> None:
    _, run = minted(store)
    first = store.claim(run, "a", ttl=30)
    assert first.generation == 1
    with pytest.raises(ClaimRefusedError, match="under a live lease"):
        store.claim(run, "b", ttl=30)
    clock.now += 31
    second = store.claim(run, "b", ttl=30)
    assert second.generation == 2


def test_a_claim_of_a_state_that_is_not_there_says_so(store: RunStore) -> None:
    _, run = minted(store)
    missing = Minted(run.run_id, "state-that-was-never-minted", run.turn_id)
    with pytest.raises(ClaimRefusedError, match=r"^no State state-that-was-never-minted$"):
        store.claim(missing, "a")


class Quota:
    """A provider that fails with a partial answer and says why; it counts what it is asked."""

    def __init__(self) -> None:
        self.asked = 0

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.asked += 1
        return ToolOutcome("failed", {"sent": 3, "of": 5}, "quota_exceeded: 3 of 5 sent")


def test_a_recorded_effect_is_replayed_whole_to_the_next_worker(
    store: RunStore, clock: Clock
) -> None:
    """A worker that dies after a call's effect was recorded (before its checkpoint): the next
    worker re-running that call gets the recorded outcome, its status, output and reason each
    in its place, and the provider is not asked again."""
    _, run = minted(store)
    call = ToolCallRequest("c1", "send_invoice", {"invoice": "INV-7"})
    provider = Quota()
    first = LedgerExecutor(store, store.claim(run, "a", ttl=1), provider).execute(call)
    clock.now += 2  # the first worker died; its lease ran out
    again = LedgerExecutor(store, store.claim(run, "b", ttl=30), provider).execute(call)
    assert (
        again == first == ToolOutcome("failed", {"sent": 3, "of": 5}, "quota_exceeded: 3 of 5 sent")
    )
    assert provider.asked == 1


def test_a_stale_generation_write_is_refused(store: RunStore, clock: Clock) -> None:
    _, run = minted(store)
    stale = store.claim(run, "a", ttl=1)
    clock.now += 2
    fresh = store.claim(run, "b", ttl=30)
    for write in (
        lambda lease: store.append_event(lease, 1, "x", {}, "runtime"),
        lambda lease: store.save_checkpoint(lease, {}),
        lambda lease: store.settle(lease, "succeeded", None),
        lambda lease: store.record_effect(lease, "c1", {}),
    ):
        with pytest.raises(StaleGenerationError, match="carries generation 1, the State is at 2"):
            write(stale)
    store.settle(fresh, "succeeded", None)
    assert store.statuses(run)[:3] == ("succeeded", "succeeded", "succeeded")
    with pytest.raises(ClaimRefusedError, match="is succeeded"):
        store.claim(run, "c")


def test_a_pass_killed_mid_turn_leaves_nothing_after_its_last_checkpoint(
    store: RunStore, clock: Clock, eval_soul: Soul, monkeypatch: pytest.MonkeyPatch
) -> None:
    conversation, run = minted(store)
    model = ScriptedModel(
        ModelResponse(tool_calls=[ToolCallRequest("c1", "lookup_ticket", {"ticketId": "T-1"})]),
        ModelResponse(text="Ticket T-1 has shipped."),
        ModelResponse(text="Ticket T-1 has shipped."),  # the retry asks the model again
    )
    tools = ScriptedTools(lookup_ticket=SHIPPED)
    real_log = durable.EventLog.__call__

    def dies_on_text(self: durable.EventLog, kind: str, payload: dict[str, Any]) -> None:
        if kind == "text.delta":
            raise KeyboardInterrupt("worker killed")
        real_log(self, kind, payload)

    monkeypatch.setattr(durable.EventLog, "__call__", dies_on_text)
    lease = store.claim(run, "a", ttl=30)
    with pytest.raises(KeyboardInterrupt):
        execute_pass(store, lease, turn_request(eval_soul, conversation, model, tools))
    # the Run is neither settled nor carrying a half-written answer
    assert store.statuses(run)[:3] == ("running", "running", None)
    kinds = [e[1] for e in store.events(run.run_id)]
    assert "text.delta" not in kinds and "turn.finished" not in kinds
    assert kinds[-1] == "tool.result"  # the last checkpoint came after the Tool result
    assert [m[0] for m in store.messages(run.run_id)] == ["user"]

    # the lease expires; another worker resumes from the checkpoint: the effect runs once
    monkeypatch.setattr(durable.EventLog, "__call__", real_log)
    clock.now += 31
    successor: Lease = store.claim(run, "b", ttl=30)
    execute_pass(store, successor, turn_request(eval_soul, conversation, model, tools), resume=True)
    assert store.statuses(run)[:3] == ("succeeded", "succeeded", "succeeded")
    assert len(tools.executed) == 1
    assert [m[0] for m in store.messages(run.run_id)] == ["user", "assistant"]
    with pytest.raises(StaleGenerationError):
        execute_pass(store, lease, turn_request(eval_soul, conversation, model, tools), resume=True)


def test_a_pass_asked_to_resume_a_state_with_no_checkpoint_is_refused_naming_it(
    store: RunStore, eval_soul: Soul
) -> None:
    """A caller that asks to resume a Run no pass has checkpointed (a scheduler of its own that
    resumes every re-claimed Run) is told which State has nothing to resume from; the model is
    never asked and the Run is left as it was, for a pass that starts it afresh."""
    conversation, run = minted(store)
    model = ScriptedModel(ModelResponse(text="Ticket T-1 has shipped."))
    request = turn_request(eval_soul, conversation, model, ScriptedTools(lookup_ticket=SHIPPED))
    lease = store.claim(run, "a")
    with pytest.raises(ValueError, match=f"State {run.state_id} has no checkpoint to resume from"):
        execute_pass(store, lease, request, resume=True)
    assert model.seen == []
    assert store.events(run.run_id) == []
    execute_pass(store, lease, request)
    assert store.statuses(run)[:3] == ("succeeded", "succeeded", "succeeded")


def _bounded(reopen: Any, conn: Any, seconds: float = 30.0) -> Any:
    """``reopen(conn)``, failed if it has not come back in ``seconds`` (SQLite's backup of a
    connection still holding its write transaction retries for ever: a hang, never a FAIL)."""
    came_back: list[Any] = []
    worker = threading.Thread(target=lambda: came_back.append(reopen(conn)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert came_back, f"the restart did not come back in {seconds:.0f} s"
    return came_back[0]


def test_a_restart_mid_write_leaves_nothing_of_the_dying_transaction_and_no_lock(
    template: StoreTemplate, clock: Clock
) -> None:
    """The process dies inside a write (its transaction open, the State's row held through the
    fence); the restarted process's session sees none of it, and its claim, once the lease has
    run out, is not refused as held by another worker's transaction: the dying session is gone."""
    conn = template.fresh()
    dying = RunStore(conn, clock)
    _, run = minted(dying)
    lease = dying.claim(run, "dying", ttl=30)
    conn.execute("BEGIN")
    dying.append_event(lease, 1, "tool.call", {}, "runtime")  # never committed
    restarted = RunStore(_bounded(template.reopen, conn), clock)
    clock.now += 31
    successor = restarted.claim(run, "restarted", ttl=30)
    assert successor.generation == lease.generation + 1
    assert restarted.events(run.run_id) == []
    template.release(restarted.conn)


def test_a_write_the_database_refuses_is_rolled_back_and_the_connection_serves_on(
    store: RunStore,
) -> None:
    """A statement the database refuses inside a transaction (a conversation id already taken)
    fails that transaction alone: it is rolled back when the refusal surfaces (on PostgreSQL at
    its COMMIT, the statements being pipelined) and the same connection serves the next write."""
    taken = store.start_conversation("support")
    conn = store.conn
    with pytest.raises(Exception, match=r"(?i)unique"), atomic(conn):
        conn.execute("INSERT INTO conversations (id, agent) VALUES (?, ?)", (taken, "triage"))
    assert not conn.in_transaction
    other = store.start_conversation("triage")
    rows = conn.execute("SELECT id, agent FROM conversations ORDER BY agent").fetchall()
    assert [tuple(row) for row in rows] == [(taken, "support"), (other, "triage")]


def test_an_approval_parks_the_run_waiting_and_resumes_once_granted(
    store: RunStore, eval_soul: Soul
) -> None:
    conversation = store.start_conversation("records-readonly")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Comment on 212."}])
    call = ToolCallRequest(
        "c1", "github_issue_comment", {"repository": "a/b", "issueNumber": 212, "body": "x"}
    )
    model = ScriptedModel(ModelResponse(tool_calls=[call]), ModelResponse(text="Commented on 212."))
    tools = ScriptedTools(github_issue_comment=SHIPPED)
    req = turn_request(
        eval_soul,
        conversation,
        model,
        tools,
        platform("github_issue_comment"),
        agent="records-readonly",
        approval=lambda _call: "park",
    )
    execute_pass(store, store.claim(run, "a"), req)
    assert store.statuses(run)[:3] == ("waiting", "waiting", None)  # the Turn: not completed
    assert len(tools.executed) == 0
    [approval] = store.pending_approvals(run.state_id)
    store.grant(approval)
    for decided in (approval, "appr_never_requested"):  # granted already, or never asked
        with pytest.raises(ValueError, match=f"approval {decided} is not waiting for a decision"):
            store.grant(decided)
    store.requeue(run)
    execute_pass(store, store.claim(run, "b"), req, resume=True)
    assert store.statuses(run)[:3] == ("succeeded", "succeeded", "succeeded")
    assert len(tools.executed) == 1
    kinds = [e[1] for e in store.events(run.run_id)]
    assert kinds.count("approval.requested") == 1 and kinds.count("approval.granted") == 1
    [asked] = [e[3] for e in store.events(run.run_id) if e[1] == "approval.requested"]
    assert asked == {
        "waitId": approval,
        "intentId": approval,
        "callId": "c1",
        "summary": "github_issue_comment needs an approval",
    }
    finished = [e[3] for e in store.events(run.run_id) if e[1] == "turn.finished"]
    assert [f["status"] for f in finished] == ["succeeded"]  # the parked pass did not finish


def test_sqlite_needs_no_psycopg_and_postgresql_names_the_extra_it_needs() -> None:
    import subprocess
    import sys

    script = """
import sys
sys.modules["psycopg"] = None  # as if the extra agent-runtime[postgresql] were not installed
from agent_runtime.durable.runs import RunStore
from agent_runtime.store.storage import StoreError, open_template
template = open_template()
assert RunStore(template.fresh()).start_conversation("support")
try:
    open_template("postgresql://eval@127.0.0.1/postgres")
except StoreError as refused:
    print(refused)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert "needs psycopg 3, the extra agent-runtime[postgresql]" in done.stdout, done


@pytest.mark.parametrize(
    ("url", "printed"),
    [
        ("postgresql://u:s3cret@h/x", "postgresql://u:***@h/x"),
        ("postgresql://u:p@ss/w0rd@host/db", "postgresql://u:***@host/db"),
        (
            "postgresql://u@h/x?password=s3cret&sslmode=off",
            "postgresql://u@h/x?password=***&sslmode=off",
        ),
        ("host=h password='se cr3t' dbname=x", "host=h password=*** dbname=x"),
        ("host=h PASSWORD = s3cret dbname=x", "host=h PASSWORD = *** dbname=x"),
        ("store mysql://u:s3cret@h/x: not a store", "store mysql://u:***@h/x: not a store"),
    ],
)
def test_a_store_url_is_printed_without_its_password_in_any_form(url: str, printed: str) -> None:
    assert shown(url) == printed
    assert "s3cret" not in shown(url) and "cr3t" not in shown(url)


def test_a_reply_holding_a_lone_surrogate_is_stored_and_read_back_whole(store: RunStore) -> None:
    conversation, run = minted(store)
    lease = store.claim(run, "a", ttl=30)
    metadata = {"n": "\udfff", "parts": ["\ud800", 2]}  # escaped JSON keeps its separators
    store.add_message(lease, conversation, "assistant", "half a pair: \ud800 kept", metadata)
    assert store.messages(run.run_id)[-1][1:] == ("half a pair: \ud800 kept", metadata)
