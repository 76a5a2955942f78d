"""A vendor failure's whole message is what a Trial's error shows, and what a re-score keeps.

A Host's loop keeps only the reason code when a vendor failure fails its Turn; the binding's
session keeps the transport's message (URL, status, body snippet). The Trial's error is that
message, and ``eval rescore`` (which re-decides a saved Trial from its Evidence) keeps it.
"""

from __future__ import annotations

from types import SimpleNamespace

from eval_core._case.evidence import Evidence
from eval_core._running.errored import vendor_detail
from eval_core._running.trial import TrialResult, decide

WHOLE = "model_request_rejected: http://127.0.0.1:9/v1/chat/completions answered 400: 'bad'"
FAILED = Evidence(tier="l2", loop_status="failed", loop_reason="model_request_rejected")


def test_the_sessions_whole_message_replaces_the_bare_reason() -> None:
    session = SimpleNamespace(failure=WHOLE)
    assert vendor_detail("model_request_rejected", session) == WHOLE  # type: ignore[arg-type]


def test_a_message_for_another_reason_or_no_message_leaves_the_error_alone() -> None:
    other = SimpleNamespace(failure="model_timeout: no reply within 5s")
    assert vendor_detail("model_request_rejected", other) == "model_request_rejected"  # type: ignore[arg-type]
    assert vendor_detail("model_request_rejected", SimpleNamespace()) == "model_request_rejected"  # type: ignore[arg-type]
    assert vendor_detail(None, SimpleNamespace(failure=WHOLE)) is None  # type: ignore[arg-type]
    prefix_only = SimpleNamespace(failure="model_request_rejected_extra: x")
    assert vendor_detail("model_request_rejected", prefix_only) == "model_request_rejected"  # type: ignore[arg-type]


def test_a_rescore_keeps_the_whole_message_it_was_saved_with() -> None:
    fresh = decide(TrialResult(case_id="c", trial=1, outcome="errored"), FAILED, [], {})
    assert fresh.outcome == "errored" and fresh.error == "model_request_rejected"
    saved = TrialResult(case_id="c", trial=1, outcome="errored", error=WHOLE)
    assert decide(saved, FAILED, [], {}).error == WHOLE
    stale = TrialResult(case_id="c", trial=1, outcome="errored", error="model_timeout: old")
    assert decide(stale, FAILED, [], {}).error == "model_request_rejected"
