"""One Trial's Evidence and a trial log's header for the transcript tests, shared by the core's
(what the trial log writes) and eval-report's (what its reader reads back): the same fixture on
both sides of the format."""

from __future__ import annotations

from eval_core._case.evidence import Evidence, GuardDecision, ModelRequest, ToolCall, Usage
from eval_core._recording import transcript
from eval_core._recording.log_records import LogHeader
from release_fixtures import HASH

KEY = "sk-transcript-test-0123456789"
HEADER = LogHeader(
    corpus_hash=HASH,
    model_id="m1",
    selected=[],
    repeat=1,
    started_at="t",
    corpus_commit="v1",
    transcripts=transcript.FORMAT,
)
EXPECT = [{"kind": "output_contains", "text": "shipped"}]


def evidence(output: str = "Order 4471 has shipped.") -> Evidence:
    found = Evidence(
        tier="l2",
        system_prompt="You are Support.",
        model_requests=[
            ModelRequest(
                system="You are Support.",
                messages=[{"role": "user", "content": "Where is order 4471?"}],
                tools=["lookup_ticket"],
            )
        ],
        output_text=output,
        output_kind="text",
        tool_calls=[ToolCall(call_id="c1", name="lookup_ticket", arguments={"id": "4471"})],
        guard_decisions=[GuardDecision(stage="output", guard="card_numbers", blocked=False)],
    )
    found.put(Usage(input_tokens=7))  # a typed family record (an eval_core type: importable)
    return found
