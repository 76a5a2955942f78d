"""Files the requester may not read: ``file_withheld`` reads what the binding sent, every part
(Tool results too), for the File's text or name; total, and failing over nothing observed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval_core._case.evidence import Evidence, ModelRequest, ToolCall
from eval_core._case.sent import sent
from eval_expectations_files.unreadable import (
    FileWithheld,
    UnreadableRecord,
    WithheldFile,
    kind_spec,
)
from eval_kit import assert_kind_conforms, evidence

SNAPSHOTS = Path(__file__).parent / "snapshots"
SPEC = kind_spec()
PAYROLL = WithheldFile(
    file_id="payroll-q2", name="q2-payroll.csv", text="employee,salary\nDana Visser,7450"
)
RECORD = UnreadableRecord(files=[PAYROLL])


def request(tool_output: object) -> ModelRequest:
    """A second request as a binding records it: the user's ask, the call, the Tool's answer."""
    return sent(
        "You are Support.",
        [
            {"role": "user", "content": "Open payroll-q2."},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "r1", "name": "file_read"}]},
            {"role": "tool", "content": json.dumps(tool_output)},
        ],
        ["file_read"],
    )


def score(ev: Evidence, file_id: str = "payroll-q2") -> tuple[bool, str]:
    verdict = SPEC.scorer(FileWithheld(file_id=file_id), ev)
    return verdict.passed, verdict.detail


REFUSED = {"status": "failed", "reason": "not_found: file payroll-q2 is not available"}


def test_a_refused_read_withholds_the_file() -> None:
    ok, detail = score(evidence("l3", [RECORD], model_requests=[request(REFUSED)]))
    assert ok and "none of the 1 model request(s)" in detail


def test_the_files_text_in_a_tool_result_fails_even_json_escaped() -> None:
    leaked = {"status": "succeeded", "output": {"fileId": "payroll-q2", "text": PAYROLL.text}}
    ok, detail = score(evidence("l3", [RECORD], model_requests=[request(leaked)]))
    assert not ok and "carries the text" in detail and "tool part" in detail


def test_the_files_name_in_a_listing_fails() -> None:
    listed = {"status": "succeeded", "output": {"files": [{"filename": "q2-payroll.csv"}]}}
    ok, detail = score(evidence("l3", [RECORD], model_requests=[request(listed)]))
    assert not ok and "carries the name" in detail


def test_nothing_observed_fails() -> None:
    assert not score(Evidence(tier="l3"))[0]
    assert "no unreadable File" in score(evidence("l3", model_requests=[request(REFUSED)]))[1]
    assert "model requests not observed" in score(evidence("l3", [RECORD]))[1]
    assert "received no request" in score(evidence("l3", [RECORD], model_requests=[]))[1]
    assert "not an unreadable File" in score(evidence("l3", [RECORD], model_requests=[]), "x")[1]


def test_the_seam_is_the_agent_asking_the_file_store() -> None:
    assert SPEC.seam is not None
    asked = evidence("l3", tool_calls=[ToolCall(call_id="r1", name="file_read", arguments={})])
    assert SPEC.seam(FileWithheld(file_id="payroll-q2"), asked)
    assert not SPEC.seam(FileWithheld(file_id="payroll-q2"), evidence("l3", tool_calls=[]))


def test_the_kind_keeps_the_contract() -> None:
    assert SPEC.witness == "binding"
    assert_kind_conforms(
        SPEC,
        examples=60,
        records=[UnreadableRecord],
        snapshot=SNAPSHOTS / "file_withheld.schema.json",
    )


FOREIGN = {
    "fileId": "payroll-q2",
    "mediaType": "text/csv",
    "name": "q2-payroll.csv",
    "content": "employee,salary\nDana Visser,7450",
    "owner": "user:dana",
    "sharedWith": ["role:finance-leads"],
}
READ = [
    {
        "kind": "tool_calls",
        "calls": [{"callId": "r1", "name": "file_read", "arguments": {"fileId": "payroll-q2"}}],
    },
    {"kind": "text", "text": "That file is not available to you."},
]


def _withheld(eval_kit: Any, file: dict[str, Any], **fields: Any) -> Any:
    """An L3 Case whose script reads ``file`` (another user's) and expects it withheld."""
    return eval_kit.case(
        {"kind": "file_withheld", "fileId": "payroll-q2"},
        tier="l3",
        unreadable=[file],
        platformTools=["file_read"],
        script=READ,
        **fields,
    )


def test_another_users_file_is_withheld_end_to_end(eval_kit: Any) -> None:
    """The reference Host's real File Tools over its File store, the binding's requests read."""
    result = eval_kit.run(_withheld(eval_kit, FOREIGN))
    assert result.outcome == "passed", (result.error, result.expectations, result.contradictions)


def test_the_load_rules(eval_kit: Any) -> None:
    def refused(file: dict[str, Any], **fields: Any) -> list[str]:
        return eval_kit.problems(_withheld(eval_kit, file, **fields))

    assert refused(FOREIGN) == []
    assert any(
        "an unreadable File is text" in p
        for p in refused({**FOREIGN, "mediaType": "application/pdf"})
    )
    assert any("must be another user" in p for p in refused({**FOREIGN, "owner": "dana"}))
    assert any("user:<id> or role:<id>" in p for p in refused({**FOREIGN, "sharedWith": ["dana"]}))
    given = refused(FOREIGN, input=[{"role": "user", "content": "Open q2-payroll.csv please."}])
    assert any("gives its name away" in p for p in given)
    scripted = refused(FOREIGN, toolResults=[{"name": "file_read", "output": {"text": "x"}}])
    assert any("runs for real" in p for p in scripted)
    other = eval_kit.problems(
        eval_kit.case({"kind": "file_withheld", "fileId": "x"}, tier="l3", unreadable=[FOREIGN])
    )
    assert any("'x' is not an unreadable File of the Case" in p for p in other)
    assert refused(FOREIGN, requesterRoles=["support-staff"]) == []
    held = refused(FOREIGN, requesterRoles=["finance-leads"])
    assert any("the requester holds role:finance-leads" in p for p in held)
    assert any("no role: prefix" in p for p in refused(FOREIGN, requesterRoles=["role:x"]))
    alone = eval_kit.problems(
        eval_kit.case(
            {"kind": "run_status", "status": "succeeded"}, tier="l3", requesterRoles=["a"]
        )
    )
    assert any("beside 'unreadable' only" in p for p in alone)


def test_a_file_shared_with_another_role_than_the_requesters_is_withheld(eval_kit: Any) -> None:
    """The requester holds a Role, the File is shared with another: still withheld."""
    case = _withheld(eval_kit, FOREIGN, requesterRoles=["support-staff"])
    result = eval_kit.run(case)
    assert result.outcome == "passed", (result.error, result.expectations, result.contradictions)


def test_the_witness_check_names_a_refusal_the_binding_contradicts() -> None:
    from eval_core._case.evidence import ToolResult
    from eval_expectations_files.unreadable import refused_but_sent

    refused = ToolResult(
        call_id="r1",
        name="file_read",
        arguments={"fileId": "payroll-q2"},
        status="failed",
        reason="not_found: file payroll-q2 is not available",
    )
    leaked = {"status": "failed", "output": {"preview": PAYROLL.text}}
    [line] = refused_but_sent(
        evidence("l3", [RECORD], model_requests=[request(leaked)], tool_results=[refused])
    )
    assert (
        "recorded file_read call r1" in line and "as failed" in line and "carries its text" in line
    )
    kept = evidence("l3", [RECORD], model_requests=[request(REFUSED)], tool_results=[refused])
    assert not list(refused_but_sent(kept))
    assert not list(refused_but_sent(evidence("l3", [RECORD], model_requests=[request(leaked)])))
