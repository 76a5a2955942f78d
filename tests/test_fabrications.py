"""The harness can fabricate too: every record a family reads back from an external party must
say what that party saw, never what the Case expected.

A family fixture that returns a record of an external party (the MCP provider's call count, a
Routine provider's applied effects, the integration channel's handed replies, the native
inbox's admission rows, the redeliveries the database holds, the File store's generated Files,
the requests the binding put on the wire, the database rows a stale worker's pass left, the
doctor's recorded steps, the effects the Tools really ran) could invent that record, or copy it
from the Case, and every Case would pass whatever the runtime did. So each test here breaks the
runtime in-process so that the party is never reached (or is reached when it must not be), runs
one Case, and asserts two things: the record read back says so, and the Case FAILs. A fixture
that copied its record from the Case (or invented "nothing happened") would report otherwise,
and the test would go red.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

from agent_runtime import admission, mcp_accounts, mcp_dispatch, recovery, retry_waits
from agent_runtime.database import Connection
from agent_runtime.file_tools import FileTools
from agent_runtime.mcp_accounts import Decision
from agent_runtime.mcp_client import McpClients
from agent_runtime.runs import RunStore
from agent_runtime.tool_providers import HttpToolProvider, ProviderReply
from agent_runtime.tools import ToolOutcome
from eval_core._case.evidence import Evidence
from eval_core._loading.corpus import Corpus, Loader
from eval_core._plugins.fixtures import Shared
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult, run_trial
from eval_expectations_doctor.plugin import DoctorRecord
from eval_expectations_durable.faults import ReplayRecord
from eval_expectations_durable.run_events import RunRecord
from eval_expectations_files.record import FilesRecord
from eval_expectations_integration_reply.plugin import RedeliveriesStored, RepliesHanded
from eval_expectations_mcp.setup import McpRecord
from eval_expectations_native.observation import NativeAdmission
from eval_expectations_routine.provider_log import ProviderLog
from eval_expectations_routine.setup import RoutineRecord
from eval_host_agent_runtime import l3
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def host(plugins: PluginSet) -> Iterator[Host]:
    found = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    yield found
    found.close()


@pytest.fixture(scope="module")
def corpus(plugins: PluginSet, host: Host) -> Corpus:
    return Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")


@pytest.fixture(scope="module")
def shared() -> Iterator[Shared]:
    """The Sweep-wide fixture resources (the MCP provider process), started once here."""
    resources = Shared()
    yield resources
    resources.close()


Run = Callable[[str], tuple[str, Evidence]]


@pytest.fixture
def trial(plugins: PluginSet, host: Host, corpus: Corpus, shared: Shared) -> Run:
    """One Trial of a Case in-process on the scripted binding: its outcome and the Evidence
    its fixtures read back."""

    def run(case_id: str) -> tuple[str, Evidence]:
        case = next(c for c in corpus.cases if c.id == case_id)
        seen: list[Evidence] = []
        result: TrialResult = run_trial(
            case,
            1,
            host,
            ScriptedBinding(),
            plugins.kinds,
            plugins.fixtures,
            shared,
            seen.append,
            plugins.witness_checks,
        )
        assert seen, f"{case_id} was not read back: {result.error}"
        return result.outcome, seen[0]

    return run


def test_the_cases_pass_against_the_real_runtime(trial: Run) -> None:
    found = {case: trial(case)[0] for case in CASES}
    assert set(found.values()) == {"passed"}, found


# -- the MCP provider's own count ---------------------------------------------------------------


def test_an_mcp_call_that_never_left_the_runtime_is_counted_zero(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client answers for the provider: the runtime believes its call was served."""

    def answered_locally(_self: McpClients, *_args: Any) -> tuple[bool, Any, str]:
        return False, {"accountId": "personal-second", "status": "operational"}, "operational"

    monkeypatch.setattr(McpClients, "call_tool", answered_locally)
    outcome, ev = trial(MCP_SERVED)
    record = ev.record(McpRecord)
    assert record is not None and record.provider_calls == 0, record
    assert outcome == "failed"


def test_an_mcp_call_the_authority_should_have_refused_is_counted(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The authority lets the selected account act whatever its grant says."""
    real = mcp_accounts.resolve

    def any_selected(
        conn: Connection, conversation_id: str, now: datetime | None = None
    ) -> Decision:
        decision = real(conn, conversation_id, now)
        row = conn.execute(
            "SELECT s.account_id, a.credential FROM mcp_selections s JOIN mcp_accounts a "
            "ON a.conversation_id = s.conversation_id AND a.id = s.account_id "
            "WHERE s.conversation_id = ?",
            (conversation_id,),
        ).fetchone()
        if decision.account_id is not None or row is None:
            return decision
        return Decision(row[0], credential=row[1])

    monkeypatch.setattr(mcp_dispatch, "resolve", any_selected)
    outcome, ev = trial(MCP_REFUSED)
    record = ev.record(McpRecord)
    assert record is not None and record.provider_calls is not None, record
    assert record.provider_calls >= 1, record
    assert outcome == "failed"


# -- a Tool provider's own log ------------------------------------------------------------------


def _answered_locally(output: Any) -> Any:
    def call(_self: HttpToolProvider, _tool: str, _arguments: Any, _key: str) -> ProviderReply:
        return ProviderReply("success", output=output)

    return call


def test_a_routine_effect_the_provider_never_applied_is_not_in_its_log(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime's provider client answers for the provider."""
    receipt = {"receiptId": "rcpt-7781", "status": "booked"}
    monkeypatch.setattr(HttpToolProvider, "call", _answered_locally(receipt))
    outcome, ev = trial(ROUTINE_APPLIED)
    record, log = ev.record(RoutineRecord), ev.record(ProviderLog)
    assert record is not None and record.provider_effects == 0, record
    assert record.provider_requests == 0, record
    assert log is not None and log.requests == [], log
    assert outcome == "failed"


def test_a_routine_effect_that_skipped_its_approval_is_in_the_providers_log(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every call counts as approved: the Routine reaches the provider with nobody's grant."""

    class Everything(frozenset[str]):
        def __contains__(self, _item: object) -> bool:
            return True

    monkeypatch.setattr(RunStore, "granted_calls", lambda _self, _state: Everything())
    outcome, ev = trial(ROUTINE_UNAPPROVED)
    record = ev.record(RoutineRecord)
    assert record is not None and record.provider_effects >= 1, record
    assert outcome == "failed"


def test_a_chat_tool_call_that_never_reached_its_provider_is_not_in_its_log(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    posted = {"ok": True, "channel": "C024BE91L", "ts": "1714583.000200"}
    monkeypatch.setattr(HttpToolProvider, "call", _answered_locally(posted))
    outcome, ev = trial(CHAT_PROVIDER)
    log = ev.record(ProviderLog)
    assert log is not None and log.requests == [], log
    assert outcome == "failed"


# -- the native inbox's admission rows ----------------------------------------------------------


def test_an_admission_that_wrote_nothing_is_read_back_empty(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Admission reports a Run it never wrote."""
    monkeypatch.setattr(
        admission, "admit", lambda _conn, _claim, **_kw: admission.Admitted("run_x", "state_x")
    )
    outcome, ev = trial(NATIVE_ADMITTED)
    record = ev.record(NativeAdmission)
    assert record is not None, ev.records
    assert (record.run_count, record.invocation_count, record.inbox_correlated) == (0, 0, False)
    assert outcome == "failed"


# -- the integration channel's handed replies ---------------------------------------------------


def test_a_reply_never_handed_to_the_channel_is_not_counted(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime records a refused delivery and settles the Run without asking the channel."""

    def unhanded(store: RunStore, run_id: str, _channel: object) -> str:
        store.conn.execute(
            "INSERT INTO run_events (run_id, seq, type, participant, payload) VALUES "
            "(?, ?, 'delivery.result', 'runtime', "
            '\'{"delivered": false, "outcome": "failed", "code": "channel_closed"}\')',
            (run_id, store.next_event_seq(run_id)),
        )
        store.conn.execute(
            "UPDATE runs SET status = 'failed', reason = 'delivery_failed: channel_closed' "
            "WHERE id = ?",
            (run_id,),
        )
        return "failed"

    monkeypatch.setattr(l3, "deliver_reply", unhanded)
    outcome, ev = trial(REPLY_HANDED)
    record = ev.record(RepliesHanded)
    assert record is not None and record.texts == [], record
    assert outcome == "failed"


def test_a_redelivery_never_stored_is_not_read_back(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime settles the Run waiting on a redelivery it never wrote."""
    monkeypatch.setattr(retry_waits, "schedule_redelivery", lambda *_args: ("wait_x", 0.0))
    outcome, ev = trial(REPLY_REDELIVERED)
    record = ev.record(RedeliveriesStored)
    assert record is not None and record.waits == [], record
    assert outcome == "failed"


# -- the binding's requests and the File store --------------------------------------------------


def test_a_pdf_whose_bytes_never_went_on_the_wire_is_not_attributed(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attachment gate renders the PDF as a note instead of its bytes."""
    from agent_runtime import attachments

    monkeypatch.setattr(
        attachments, "_binary", lambda stored: {"type": "text", "text": f"[{stored.name}]"}
    )
    outcome, ev = trial(FILE_SENT)
    record = ev.record(FilesRecord)
    assert record is not None, ev.records
    sent = [p for request in record.requests for p in request if p.file_id == "pdf-text"]
    assert sent == [], sent
    assert outcome == "failed"


def test_a_generated_file_never_stored_is_not_read_back(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """file_create answers a draft it never put in the store."""

    def create(_self: FileTools, arguments: Any) -> ToolOutcome:
        name = f"{arguments.get('filename')}.pdf"
        return ToolOutcome(
            "succeeded",
            {
                "status": "draft",
                "draftId": "draft-0",
                "filename": name,
                "mediaType": "application/pdf",
            },
        )

    monkeypatch.setattr(FileTools, "create", create)
    outcome, ev = trial(FILE_GENERATED)
    record = ev.record(FilesRecord)
    assert record is not None and record.generated == [], record
    assert outcome == "failed"


# -- database rows ------------------------------------------------------------------------------


def test_a_stale_workers_writes_that_landed_are_read_back(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generation fence refuses nothing: the worker that lost its lease writes."""
    monkeypatch.setattr(RunStore, "fence", lambda _self, _lease: None)
    outcome, ev = trial(STALE_REFUSED)
    record = ev.record(RunRecord)
    assert record is not None and record.stale_writes, record
    assert all(w.landed for w in record.stale_writes), record.stale_writes
    assert outcome == "failed"


def test_a_doctor_that_never_ran_has_no_steps_read_back(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(l3, "run_doctor", lambda *_args, **_kw: [])
    outcome, ev = trial(DOCTOR_REPAIRED)
    record = ev.record(DoctorRecord)
    assert record is not None, ev.records
    assert (record.events, record.commits) == ([], []), record
    assert outcome == "failed"


# -- the effects the Tools really ran -----------------------------------------------------------


def test_an_effect_run_twice_by_a_forgetful_ledger_is_counted_twice(
    trial: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The in-memory effect ledger forgets: the replayed batch runs its first effect again."""
    monkeypatch.setattr(
        recovery.EffectLedger, "execute", lambda self, call: self.inner.execute(call)
    )
    outcome, ev = trial(CHECKPOINT_REPLAYED)
    record = ev.record(ReplayRecord)
    assert record is not None and record.batch, record
    assert record.effects.get(record.batch[0]) == 2, record
    assert outcome == "failed"


MCP_SERVED = "l3-mcp-the-exact-selected-account-is-used"
MCP_REFUSED = "l3-mcp-a-revoked-grant-blocks-an-approved-call"
ROUTINE_APPLIED = "l3-routine-books-an-invoice-and-captures-the-receipt"
ROUTINE_UNAPPROVED = "l3-routine-without-an-approver-never-reaches-the-provider"
CHAT_PROVIDER = "l3-a-rate-limited-post-comes-back-no-sooner-than-the-provider-asked"
NATIVE_ADMITTED = "l3-native-routine-approved-route-account"
REPLY_HANDED = "l3-a-reply-the-integration-refused-fails-the-run"
REPLY_REDELIVERED = "l3-a-reply-the-integration-may-take-later-waits-for-redelivery"
FILE_SENT = "l3-file-pdf-text-is-sent-with-its-exact-bytes"
FILE_GENERATED = "l3-file-chat-generated-pdf-is-a-draft"
STALE_REFUSED = "l3-approval-parks-the-run-and-the-comment-posts-once"
DOCTOR_REPAIRED = "l3-doctor-repairs-a-routine-that-reads-an-undeclared-input"
CHECKPOINT_REPLAYED = "checkpoint-crash-replays-the-first-batch"
CASES = (
    MCP_SERVED,
    MCP_REFUSED,
    ROUTINE_APPLIED,
    ROUTINE_UNAPPROVED,
    CHAT_PROVIDER,
    NATIVE_ADMITTED,
    REPLY_HANDED,
    REPLY_REDELIVERED,
    FILE_SENT,
    FILE_GENERATED,
    STALE_REFUSED,
    DOCTOR_REPAIRED,
    CHECKPOINT_REPLAYED,
)
