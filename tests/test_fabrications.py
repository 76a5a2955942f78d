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
from typing import Any, Protocol, TypeVar

import pytest

from agent_runtime.durable import retry_waits
from agent_runtime.durable.runs import RunStore
from agent_runtime.files.tools import FileTools
from agent_runtime.mcp.accounts import Decision
from agent_runtime.mcp.client import McpClients
from agent_runtime.native import admission
from agent_runtime.routines.tool_providers import HttpToolProvider, ProviderReply
from agent_runtime.soul import doctor
from agent_runtime.store.database import Connection
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn import recovery
from eval_core._case.evidence import Evidence
from eval_core._loading.corpus import Corpus
from eval_core._plugins.fixtures import SweepResources
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
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
from tests.conftest import grant_every_call, observed, over_the_soul, shipped_corpus
from tests.test_mcp_mutations import resolving, selected_account

real_host = pytest.fixture(over_the_soul, scope="module", name="real_host")
corpus = pytest.fixture(shipped_corpus, scope="module", name="corpus")


@pytest.fixture(scope="module")
def shared() -> Iterator[SweepResources]:
    """The Sweep-wide fixture resources (the MCP provider process), started once here."""
    resources = SweepResources()
    yield resources
    resources.close()


Run = Callable[[str], tuple[str, Evidence]]


@pytest.fixture
def trial(plugins: PluginSet, real_host: Host, corpus: Corpus, shared: SweepResources) -> Run:
    """One Trial of a Case in-process on the scripted binding: its outcome and the Evidence
    its fixtures read back."""

    def run(case_id: str) -> tuple[str, Evidence]:
        result, evidence = observed(corpus, real_host, plugins, case_id, shared)
        return result.outcome, evidence

    return run


T = TypeVar("T")


class Failed(Protocol):
    def __call__(self, case_id: str, kind: type[T]) -> T: ...


@pytest.fixture
def failed(trial: Run) -> Failed:
    """``failed(case_id, Record)``: the Case's Trial FAILed; the ``Record`` its fixtures read
    back (there is one)."""

    def run(case_id: str, kind: type[T]) -> T:
        outcome, ev = trial(case_id)
        record = ev.record(kind)
        assert record is not None, ev.records
        assert outcome == "failed"
        return record

    return run


def test_the_cases_pass_against_the_real_runtime(trial: Run) -> None:
    found = {case: trial(case)[0] for case in CASES}
    assert set(found.values()) == {"passed"}, found


# -- the MCP provider's own count ---------------------------------------------------------------


def test_an_mcp_call_that_never_left_the_runtime_is_counted_zero(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client answers for the provider: the runtime believes its call was served."""

    def answered_locally(_self: McpClients, *_args: Any) -> tuple[bool, Any, str]:
        return False, {"accountId": "personal-second", "status": "operational"}, "operational"

    monkeypatch.setattr(McpClients, "call_tool", answered_locally)
    record = failed(MCP_SERVED, McpRecord)
    assert record.provider_calls == 0, record


def test_an_mcp_call_the_authority_should_have_refused_is_counted(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The authority lets the selected account act whatever its grant says."""

    def any_selected(conn: Connection, conversation_id: str, decision: Decision) -> Decision:
        row = selected_account(conn, conversation_id)
        if decision.account_id is not None or row is None:
            return decision
        return Decision(row[0], credential=row[1])

    resolving(monkeypatch, any_selected)
    record = failed(MCP_REFUSED, McpRecord)
    assert record.provider_calls is not None, record
    assert record.provider_calls >= 1, record


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
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every call counts as approved: the Routine reaches the provider with nobody's grant."""

    grant_every_call(monkeypatch)
    record = failed(ROUTINE_UNAPPROVED, RoutineRecord)
    assert record.provider_effects >= 1, record


def test_a_chat_tool_call_that_never_reached_its_provider_is_not_in_its_log(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    posted = {"ok": True, "channel": "C024BE91L", "ts": "1714583.000200"}
    monkeypatch.setattr(HttpToolProvider, "call", _answered_locally(posted))
    log = failed(CHAT_PROVIDER, ProviderLog)
    assert log.requests == [], log


# -- the native inbox's admission rows ----------------------------------------------------------


def test_an_admission_that_wrote_nothing_is_read_back_empty(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Admission reports a Run it never wrote."""
    monkeypatch.setattr(
        admission, "admit", lambda _conn, _claim, **_kw: admission.Admitted("run_x", "state_x")
    )
    record = failed(NATIVE_ADMITTED, NativeAdmission)
    assert (record.run_count, record.invocation_count, record.inbox_correlated) == (0, 0, False)


# -- the integration channel's handed replies ---------------------------------------------------


def test_a_reply_never_handed_to_the_channel_is_not_counted(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
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
    record = failed(REPLY_HANDED, RepliesHanded)
    assert record.texts == [], record


def test_a_redelivery_never_stored_is_not_read_back(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runtime settles the Run waiting on a redelivery it never wrote."""
    monkeypatch.setattr(retry_waits, "schedule_redelivery", lambda *_args: ("wait_x", 0.0))
    record = failed(REPLY_REDELIVERED, RedeliveriesStored)
    assert record.waits == [], record


# -- the binding's requests and the File store --------------------------------------------------


def test_a_pdf_whose_bytes_never_went_on_the_wire_is_not_attributed(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attachment gate renders the PDF as a note instead of its bytes."""
    from agent_runtime.files import attachments

    monkeypatch.setattr(
        attachments, "_binary", lambda stored: {"type": "text", "text": f"[{stored.name}]"}
    )
    record = failed(FILE_SENT, FilesRecord)
    sent = [p for request in record.requests for p in request if p.file_id == "pdf-text"]
    assert sent == [], sent


def test_a_generated_file_never_stored_is_not_read_back(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
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
    record = failed(FILE_GENERATED, FilesRecord)
    assert record.generated == [], record


# -- database rows ------------------------------------------------------------------------------


def test_a_stale_workers_writes_that_landed_are_read_back(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generation fence refuses nothing: the worker that lost its lease writes, and the
    Host's read-back says nothing refused it (never that the runtime raised its refusal)."""
    monkeypatch.setattr(RunStore, "fence", lambda _self, _lease: None)
    record = failed(STALE_REFUSED, RunRecord)
    assert record.stale_writes, record
    assert all(w.landed for w in record.stale_writes), record.stale_writes
    assert not any(w.raised for w in record.stale_writes), record.stale_writes
    assert all("nothing refused it" in w.detail for w in record.stale_writes), record.stale_writes


def test_a_doctor_that_never_ran_has_no_steps_read_back(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(doctor, "run_doctor", lambda *_args, **_kw: [])
    record = failed(DOCTOR_REPAIRED, DoctorRecord)
    assert (record.events, record.commits) == ([], []), record


# -- the effects the Tools really ran -----------------------------------------------------------


def test_an_effect_run_twice_by_a_forgetful_ledger_is_counted_twice(
    failed: Failed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The in-memory effect ledger forgets: the replayed batch runs its first effect again."""
    monkeypatch.setattr(
        recovery.EffectLedger, "execute", lambda self, call: self.inner.execute(call)
    )
    record = failed(CHECKPOINT_REPLAYED, ReplayRecord)
    assert record.batch, record
    assert record.effects.get(record.batch[0]) == 2, record


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
