"""The always-on witness check, one test per contradiction, each built from a runtime mutation.

Each mutation makes the runtime's own record disagree with what a witness saw: the runtime
denies a call and runs it anyway, records arguments it did not pass, records a dispatch no Tool
received, reports a prompt it did not send, miscounts its model calls or the tokens they used.
The Trial must FAIL with the contradiction named (both sides), whatever its Expectations say;
unmutated, the same Cases pass with no contradiction.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_runtime.model import ModelRequest
from agent_runtime.tools import ToolOutcome
from agent_runtime.turn import events, loop, recovery, tool_step
from eval_core._case.witness import WITNESSED
from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import PluginSet, load_plugins
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult
from eval_core._sweeping.render import render_text
from tests.conftest import ROOT

DENIED = "records-readonly-cannot-comment-on-an-issue"
DENIED_L3 = "l3-capability-denial-is-read-back-from-the-run"
CALLS = "support-reads-two-tickets-in-one-batch"
PLAIN = "support-passes-a-clean-ticket-to-the-model"
READ_SCAN = "l3-file-pdf-read-scan-is-attached-to-the-next-request"
RESUMED = "checkpoint-crash-replays-the-first-batch"
RESUMED_L3 = "l3-a-worker-killed-mid-batch-is-replaced-and-resumes-from-its-checkpoint"


@pytest.fixture(scope="module")
def loaded() -> Iterator[tuple[PluginSet, Any, Corpus]]:
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    try:
        yield plugins, host, Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
    finally:
        host.close()


def trials(loaded: tuple[PluginSet, Any, Corpus], *ids: str) -> dict[str, TrialResult]:
    plugins, host, corpus = loaded
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=ids)
    return {t.case_id: t for t in card.trials}


def contradicted(trial: TrialResult, check: str) -> list[str]:
    assert trial.outcome == "failed", (trial.outcome, trial.error, trial.contradictions)
    found = [line for line in trial.contradictions if line.startswith(f"{check}: ")]
    assert found, trial.contradictions
    return found


def test_unmutated_the_cases_pass_with_no_contradiction(loaded: Any) -> None:
    for trial in trials(loaded, DENIED, DENIED_L3, CALLS, PLAIN, READ_SCAN).values():
        assert trial.outcome == "passed", (trial.case_id, trial.contradictions)
        assert trial.contradictions == []


def run_denied_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The regression: the runtime denies a call and its Tool still receives it."""
    real = tool_step.ToolStep.deny

    def deny_and_run(self: Any, call: Any, reason: str, source: Any) -> None:
        real(self, call, reason, source)
        self.executor.execute(call)

    monkeypatch.setattr(tool_step.ToolStep, "deny", deny_and_run)


def test_a_denied_call_that_still_runs_fails_at_both_tiers(
    loaded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_denied_calls(monkeypatch)
    for trial in trials(loaded, DENIED, DENIED_L3).values():
        (line,) = contradicted(trial, "denied call received")
        assert " as denied by " in line and line.endswith("but the Tool received it")


def test_recorded_arguments_that_differ_from_what_the_tool_received_fail(
    loaded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = events.preview

    def wrong_preview(value: Any) -> Any:  # the record shows arguments that were never passed
        return real({**value, "recorded": "only"} if isinstance(value, dict) else value)

    monkeypatch.setattr(events, "preview", wrong_preview)
    lines = contradicted(trials(loaded, CALLS)[CALLS], "recorded call not received")
    assert all('"recorded":"on' in line and "but the Tool received {" in line for line in lines), (
        lines
    )


def test_a_dispatch_no_tool_received_fails(loaded: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def short_circuit(self: Any, call: Any) -> ToolOutcome:  # believes every effect ran before
        return ToolOutcome("succeeded", {"cached": True})

    monkeypatch.setattr(recovery.EffectLedger, "execute", short_circuit)
    lines = contradicted(trials(loaded, CALLS)[CALLS], "recorded call not received")
    assert lines and all("but no Tool received it" in line for line in lines)


def test_a_reported_prompt_that_was_not_sent_fails(
    loaded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def request(system: str, messages: Any, tools: Any) -> ModelRequest:
        return ModelRequest(system + "\n(appended after the report)", messages, tools)

    monkeypatch.setattr(loop, "ModelRequest", request)
    (line,) = contradicted(trials(loaded, PLAIN)[PLAIN], "reported prompt not sent")
    assert "the binding sent" in line and "appended after the report" in line


def test_a_miscounted_model_call_fails(loaded: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    class Miscounted(loop.TurnResult):  # type: ignore[misc]
        def __setattr__(self, name: str, value: Any) -> None:
            if name == "model_calls" and value:
                value += 1  # counts a call it never made
            super().__setattr__(name, value)

    monkeypatch.setattr(loop, "TurnResult", Miscounted)
    (line,) = contradicted(trials(loaded, PLAIN)[PLAIN], "reported model calls not counted")
    assert "model call(s), but the binding received 2 request(s)" in line
    assert "reported 2 " not in line


def test_usage_swapped_by_the_runtime_fails(loaded: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    class Swapped(loop.TurnResult):  # type: ignore[misc]
        def __setattr__(self, name: str, value: Any) -> None:
            if name == "usage":
                value = type(value)(value.output_tokens, value.input_tokens)
            super().__setattr__(name, value)

    monkeypatch.setattr(loop, "TurnResult", Swapped)
    (line,) = contradicted(trials(loaded, PLAIN)[PLAIN], "reported usage not handed")
    assert "but the binding's replies carried 304 and 3" in line


@pytest.mark.parametrize("case", [RESUMED, RESUMED_L3])
def test_usage_a_resumed_turn_forgets_fails(
    loaded: Any, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """The checkpoint carries the usage of the model calls before it (it did not: a Turn
    resumed after a failed checkpoint write or a dead worker reported only its last pass)."""
    real = loop._resume

    def forgetting(turn: Any, resume: Any) -> Any:
        import msgspec

        return real(turn, msgspec.structs.replace(resume, usage=type(resume.usage)()))

    monkeypatch.setattr(loop, "_resume", forgetting)
    (line,) = contradicted(trials(loaded, case)[case], "reported usage not handed")
    assert "but the binding's replies carried 305 and 3" in line


def test_the_scorecard_names_the_contradiction(
    loaded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_denied_calls(monkeypatch)
    plugins, host, corpus = loaded
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=[DENIED])
    text = render_text(card)
    assert f"FAIL  {DENIED}#1" in text
    assert f"     - {WITNESSED}: denied call received: the runtime recorded call" in text


def test_an_announced_attachment_that_is_never_sent_fails(
    loaded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files family's check: the runtime announces the File a file_read attached, then
    drops it from the next request."""
    real = loop._attach_read_files

    def announce_only(turn: Any, *args: Any) -> None:
        kept = len(turn.result.messages)
        real(turn, *args)  # announced ...
        del turn.result.messages[kept:]  # ... and never put in the history the request takes

    monkeypatch.setattr(loop, "_attach_read_files", announce_only)
    (line,) = contradicted(trials(loaded, READ_SCAN)[READ_SCAN], "announced attachment not sent")
    assert "as attached, but none of the" in line


def test_a_durable_turn_whose_usage_is_lost_fails(
    loaded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The L3 Host testifies to the usage the runtime returned, zero included (sample 16's
    ``durable/executor.py:264`` mutant lost a pass's result, and with it every token: a zero
    report was taken for a Host that reports none, and every L3 Case stayed green)."""
    from agent_runtime.durable import scenario

    real = scenario.execute_pass

    def forgetful(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        return None

    monkeypatch.setattr(scenario, "execute_pass", forgetful)
    case = "l3-the-assistant-message-records-the-model-and-the-tokens-it-spent"
    (line,) = contradicted(trials(loaded, case)[case], "reported usage not handed")
    assert "the runtime reported 0 input and 0 output tokens" in line
