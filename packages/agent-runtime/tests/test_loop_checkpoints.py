"""The loop's durability seams: approval parking, checkpoints, resume, the completion guard."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.model import ModelResponse, ToolCallRequest
from agent_runtime.soul.loader import Soul
from agent_runtime.tools import PLATFORM_TOOLS, ToolOutcome
from agent_runtime.turn.recovery import (
    MAX_RECOVERIES,
    CheckpointWriteError,
    EffectLedger,
    MemoryCheckpoints,
    run_recovering,
)
from agent_runtime.turn.result import OUTPUT_LIMIT_REASON, TurnResult
from agent_runtime.turn.settings import Checkpoint, TurnSettings, TurnStart
from runtime_doubles import ScriptedModel, platform, turn

COMMENT = ToolCallRequest(
    "c1", "github_issue_comment", {"repository": "a/b", "issueNumber": 1, "body": "x"}
)


class Counting:
    def __init__(self) -> None:
        self.runs = 0

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        self.runs += 1
        return ToolOutcome("succeeded", {"id": self.runs})


class Saved:
    def __init__(self) -> None:
        self.checkpoints: list[Checkpoint] = []

    def save(self, checkpoint: Checkpoint) -> None:
        self.checkpoints.append(checkpoint)


def commenting(soul: Soul, model: ScriptedModel, executor: Any, **kwargs: Any) -> TurnResult:
    """A Turn of ``records-readonly`` asked to comment on an issue."""
    tools = platform("github_issue_comment")
    return turn(soul, "records-readonly", model, tools, executor, "Comment on issue 1.", **kwargs)


def test_without_a_policy_the_ceiling_denies_as_before(eval_soul: Soul) -> None:
    tools = Counting()
    result = commenting(
        eval_soul,
        ScriptedModel(ModelResponse(tool_calls=[COMMENT]), ModelResponse(text="No.")),
        tools,
    )
    assert result.status == "completed" and tools.runs == 0
    assert result.denials[0].source == "autonomy"


def test_a_parked_call_checkpoints_and_resumes_once_approved(eval_soul: Soul) -> None:
    tools, saved = Counting(), Saved()
    parked = commenting(
        eval_soul, ScriptedModel(ModelResponse(tool_calls=[COMMENT])), tools,
        approval=lambda _c: "park", checkpoints=saved,
    )  # fmt: skip
    assert (parked.status, parked.reason) == ("waiting", "approval_required")
    last = saved.checkpoints[-1]
    assert last.awaiting == "c1" and last.next_call == 0 and tools.runs == 0
    resumed = commenting(
        eval_soul, ScriptedModel(ModelResponse(text="Commented.")), tools,
        approval=lambda _c: "park", checkpoints=saved, resume=last, approved=frozenset({"c1"}),
    )  # fmt: skip
    assert resumed.status == "completed" and tools.runs == 1
    assert resumed.model_calls == 2
    assert resumed.batches == [["c1"]]  # the batch it resumed, as a fresh Turn lists its own


def test_a_replayed_batch_runs_each_effect_once(eval_soul: Soul) -> None:
    inner = Counting()
    ledger = EffectLedger(inner)
    call = ToolCallRequest("c1", "lookup_ticket", {"ticketId": "T-1"})
    assert ledger.execute(call) == ledger.execute(call)
    assert inner.runs == 1


@pytest.mark.parametrize("failures", [1, 2, 3])
def test_failed_checkpoint_writes_resume_the_batch_twice_and_end_the_turn_the_third_time(
    eval_soul: Soul, failures: int
) -> None:
    """A checkpoint store failing on a write, and again on each resume: up to two failed writes
    are resumed from without asking the model again (each effect still runs once), a third
    ends the Turn with the store's failure."""
    first = ToolCallRequest("c1", "lookup_ticket", {"ticketId": "T-1"})
    second = ToolCallRequest("c2", "lookup_ticket", {"ticketId": "T-2"})
    crashed: list[int] = []

    def crash(checkpoint: Checkpoint) -> None:
        if checkpoint.next_call >= 1 and len(crashed) < failures:
            crashed.append(checkpoint.next_call)
            raise CheckpointWriteError("disk full")

    events: list[tuple[str, dict[str, object]]] = []
    tools = Counting()
    settings = TurnSettings(
        soul=eval_soul,
        agent_slug="support",
        tools=[PLATFORM_TOOLS["lookup_ticket"]],
        model=ScriptedModel(ModelResponse(tool_calls=[first, second]), ModelResponse(text="Done.")),
        executor=tools,
        listener=lambda kind, payload: events.append((kind, payload)),
    )
    start = TurnStart(messages=[{"role": "user", "content": "Compare T-1 and T-2."}])
    if failures > MAX_RECOVERIES:
        with pytest.raises(CheckpointWriteError, match="the checkpoint store failed 3 times"):
            run_recovering(settings, start, MemoryCheckpoints(crash))
        assert crashed == [1, 1, 1] and tools.runs == 1  # c1's effect ran once; c2 never ran
        return
    result = run_recovering(settings, start, MemoryCheckpoints(crash))
    assert result.status == "completed" and result.model_calls == 2
    assert crashed == [1] * failures and tools.runs == 2  # c1 ran once, however often dispatched
    dispatched = [p["callId"] for kind, p in events if kind == "tool.call"]
    assert dispatched == ["c1"] * (failures + 1) + ["c2"]


def test_the_completion_guard_refuses_a_truncated_answer(eval_soul: Soul) -> None:
    result = commenting(
        eval_soul, ScriptedModel(ModelResponse(text="Half an", finish_reason="length")), Counting()
    )
    assert (result.status, result.reason) == ("failed", OUTPUT_LIMIT_REASON)
    assert result.output_text is None
