"""Break durability on purpose and watch the right L3 Cases fail.

Each test swaps one piece of the real runtime for a broken variant (history kept in memory,
the lease fence skipped, text.delta not persisted, a writer that writes where the loader does
not read, an effect ledger that reruns effects), sweeps the Cases that guard it, and asserts
they fail: an errored Trial is not a red Case. The same Cases pass against the real code.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.durable import executor as durable
from agent_runtime.durable.runs import RunStore
from agent_runtime.soul import repo as soul_repo
from agent_runtime.turn import recovery
from eval_core._case.case import ToolCallsStep
from eval_core._loading.corpus import Corpus
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding, ScriptedSession
from tests.conftest import ROOT, Sweep, killed_mid_turn_then_rerun

HISTORY = ["l3-journey-rereads-the-history-from-the-database"]
FENCE = sorted(
    p.stem
    for p in (ROOT / "corpus").glob("l3-*.json")
    if '"kind": "stale_writes_refused"' in p.read_text()
)
STREAM = [
    "l3-durable-stream-never-carries-a-card-number",
    "l3-durable-stream-omits-nothing-it-was-never-told",
    "l3-support-answers-from-a-durable-lookup",
]
WRITER = ["l3-journey-a-committed-skill-is-what-the-next-turn-loads"]


ALL = HISTORY + FENCE + STREAM + WRITER


def test_the_guarding_cases_pass_against_the_real_runtime(sweep: Sweep) -> None:
    assert set(sweep.outcomes(ALL).values()) == {"passed"}


def test_history_kept_in_memory_turns_the_journey_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory: list[dict[str, Any]] = []
    real_run_turn, real_history = durable.run_turn, RunStore.history

    def remembering(*args: Any, **kwargs: Any) -> Any:
        result = real_run_turn(*args, **kwargs)
        memory[:] = result.messages
        return result

    def from_memory(self: RunStore, conversation_id: str) -> list[dict[str, Any]]:
        persisted = real_history(self, conversation_id)
        return [*memory, persisted[-1]] if memory else persisted

    monkeypatch.setattr(durable, "run_turn", remembering)
    monkeypatch.setattr(RunStore, "history", from_memory)
    sweep.red(HISTORY)


def test_skipping_the_lease_fence_turns_the_approval_cases_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(FENCE) >= 6
    monkeypatch.setattr(RunStore, "fence", lambda self, lease: None)
    sweep.red(FENCE)


def test_skipping_the_lease_fence_fails_the_approval_cases_over_a_real_wire(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same mutation, the model reached over the OpenAI wire on loopback: FAIL, not ERR."""
    monkeypatch.setattr(RunStore, "fence", lambda self, lease: None)
    card, _ = sweep.over_the_wire(FENCE)
    found = {t.case_id: t.outcome for t in card.trials}
    assert found == dict.fromkeys(FENCE, "failed"), found


def test_dropping_text_delta_persistence_turns_the_stream_cases_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_log = durable.EventLog.__call__

    def forgetful(self: durable.EventLog, kind: str, payload: dict[str, Any]) -> None:
        if kind != "text.delta":
            real_log(self, kind, payload)

    monkeypatch.setattr(durable.EventLog, "__call__", forgetful)
    sweep.red(STREAM)


def test_a_writer_the_loader_cannot_see_turns_the_skill_journey_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_path = soul_repo.artifact_path
    monkeypatch.setattr(
        soul_repo,
        "artifact_path",
        lambda kind, slug: real_path(kind, slug).replace("skills/", "skill/"),
    )
    sweep.red(WRITER)


def test_a_trial_killed_mid_turn_leaves_no_run_for_the_next_trial(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = killed_mid_turn_then_rerun(
        corpus, real_host, plugins, monkeypatch, lambda trial: trial.durable.store.run_count()
    )
    assert seen == [1]  # the second Trial's database held its own Run and nothing else


def test_a_ledger_that_reruns_effects_turns_the_crash_case_red(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def every_time(self: recovery.EffectLedger, call: Any) -> Any:
        return self.inner.execute(call)

    monkeypatch.setattr(recovery.EffectLedger, "execute", every_time)
    sweep.red(["checkpoint-crash-replays-the-first-batch"])


class _Unbatched(ScriptedBinding):
    """A model that makes the Case's calls one per response, as a real model may."""

    def session(self, case: Any) -> ScriptedSession:
        [batch, *rest] = case.script
        one_by_one = [ToolCallsStep(calls=[call]) for call in batch.calls]
        return ScriptedSession(case, [*one_by_one, *rest])


def test_a_model_that_does_not_batch_leaves_the_replay_unexercised(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    """The batch is the one the runtime dispatched, never the script's: unbatched is UNEX."""
    case = ["checkpoint-crash-replays-the-first-batch"]
    card = run_sweep(corpus, real_host, _Unbatched(), plugins, select=case)
    [trial] = card.trials
    assert trial.outcome == "unexercised", trial
    assert trial.unexercised == "the seam of tool_batch_replayed was never exercised"
