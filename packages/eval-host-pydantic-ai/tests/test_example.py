"""The example project, swept through pydantic-ai's own loop: green on the scripted binding and
over the loopback OpenAI wire (but for the Case that tells a call of the output Tool from JSON
text), its red-by-design Case named, and red under a mutation of pydantic-ai's own code (a Tool
call dropped, the instructions altered)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pydantic_ai import _instructions
from pydantic_ai.tool_manager import ToolManager

from eval_core.hosts import Corpus, Evidence, Host, Loader, PluginSet, ScriptedTools
from eval_core.records import Scorecard as Card

CORPUS = Path(__file__).parents[3] / "examples" / "pydantic-ai-support" / "corpus"
ASKED = "Where is my order A-1001?"  # order-status-is-looked-up, a Case of the support agent


def _sweep(corpus: Corpus, host: Any, plugins: PluginSet, **options: Any) -> Card:
    from eval_core._running.runner import run_sweep  # the in-process Sweep the CLI runs
    from eval_core._running.scripted import ScriptedBinding

    return run_sweep(corpus, host, options.pop("binding", ScriptedBinding()), plugins, **options)


def test_the_example_sweeps_green_on_the_scripted_binding(
    example: Corpus, example_host: Host, plugins: PluginSet
) -> None:
    seen: dict[str, Evidence] = {}
    card = _sweep(
        example, example_host, plugins, on_evidence=lambda c, e: seen.__setitem__(c.id, e)
    )
    assert len(card.trials) >= 15
    assert {t.case_id: t.outcome for t in card.trials if t.outcome != "passed"} == {}
    # the real Tools ran where the Case scripts none: the MCP help centre's own article...
    mcp = seen["returns-policy-comes-from-the-help-centre"].tool_results or []
    assert [r.name for r in mcp] == ["search_help"] and "30 days" in str(mcp[0].output)
    # ...and the order desk's refusal, which pydantic-ai sent back to the model as a retry
    refused = seen["refund-of-an-undelivered-order-is-refused-by-the-desk"].tool_results or []
    assert [(r.status, r.reason) for r in refused] == [
        ("invalid_arguments", "order A-1001 is shipped, not delivered: it cannot be refunded yet")
    ]


def test_the_red_by_design_case_names_its_reason(
    plugins: PluginSet, example_host: Host, tmp_path: Path
) -> None:
    from eval_report.html import write_report

    loader = Loader(plugins, example_host, judge="no-judge", needs_soul=False)
    red = loader.load(CORPUS / "red-by-design")
    card = _sweep(red, example_host, plugins)
    (trial,) = card.trials
    assert trial.outcome == "failed"
    failing = [e.detail for e in trial.expectations if not e.passed]
    assert failing == [
        'answer "Order A-1002 (down sleeping bag) was delivered on 2026-11-20. Note: INTERNAL: '
        'fraud check passed manually." contains "INTERNAL"'
    ]
    saved = tmp_path / "scripted.json"
    saved.write_bytes(msgspec.json.encode(card))
    report = tmp_path / "report.html"
    write_report([saved], report, [])
    assert "contains &#34;INTERNAL&#34;" in report.read_text() or 'contains "INTERNAL"' in (
        report.read_text()
    )


def test_the_example_sweeps_green_once_over_the_loopback_openai_wire(
    example: Corpus, example_host: Host, plugins: PluginSet
) -> None:
    from tests.conftest import loopback_wire

    chosen = [c.id for c in example.cases]  # the whole Corpus, once over the wire
    with loopback_wire(example, chosen) as (vendor, binding):
        card = _sweep(example, example_host, plugins, binding=binding, select=chosen)
    # The loopback vendor answers a structured step as JSON text, not as a call of pydantic-ai's
    # output Tool; the triage agent takes either, but pydantic-ai then sends its repair of a
    # priority the desk does not use back as a user message, not as the output Tool's answer.
    # The one Case that reads which of the two the model got fails on exactly that.
    repaired = "a-ticket-priority-the-desk-does-not-use-is-sent-back-to-the-model"
    outcomes = {t.case_id: t.outcome for t in card.trials}
    assert outcomes == {**dict.fromkeys(chosen, "passed"), repaired: "failed"}
    (trial,) = (t for t in card.trials if t.case_id == repaired)
    assert [e.kind for e in trial.expectations if not e.passed] == ["model_messages_in_order"]
    assert all(t.usage.input_tokens == 100 * t.model_calls for t in card.trials)
    # what went on the wire for the support agent: pydantic-ai's prompt, its Tools
    first = next(b for b in vendor.bodies if b["messages"][1]["content"] == ASKED)
    assert first["messages"][0]["role"] == "system"
    assert "You are Acme Outdoor support." in first["messages"][0]["content"]
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"lookup_order", "refund_order", "search_help"} <= offered


def test_dropping_a_tool_call_inside_pydantic_ai_turns_cases_red(
    example: Corpus, example_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pydantic-ai's ToolManager answers ``refund_order`` itself, never calling the Tool."""
    real = ToolManager._raw_execute

    async def dropped(self: ToolManager[Any], validated: Any, **kwargs: Any) -> Any:
        if validated.call.tool_name == "refund_order":
            return {"refund_id": "R-A-1002", "order_id": "A-1002", "amount": "full"}
        return await real(self, validated, **kwargs)

    monkeypatch.setattr(ToolManager, "_raw_execute", dropped)
    case = "refund-of-a-delivered-order-looks-it-up-first"
    (trial,) = _sweep(example, example_host, plugins, select=[case]).trials
    assert trial.outcome == "failed"
    assert any("recorded dispatching call c2" in c for c in trial.contradictions), trial
    assert not next(e for e in trial.expectations if e.kind == "tool_call_order").passed


def test_altering_the_instructions_inside_pydantic_ai_turns_cases_red(
    example: Corpus, example_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pydantic-ai's own instruction resolution drops the agent's refusal rule."""
    real = _instructions.resolve_sourced_instructions

    async def altered(instructions: Any, run_context: Any) -> Any:
        parts = await real(instructions, run_context)
        cut = "Politely decline anything else"
        return [dataclasses.replace(p, content=p.content.split(cut)[0]) for p in parts]

    monkeypatch.setattr(_instructions, "resolve_sourced_instructions", altered)
    cases = ["instructions-reach-the-model"]
    card = _sweep(example, example_host, plugins, select=cases)
    assert [t.outcome for t in card.trials] == ["failed"]
    failed = [e.kind for e in card.trials[0].expectations if not e.passed]
    assert failed == ["prompt_contains"]


def test_a_scripted_tool_is_answered_from_the_script_not_the_team_s_function(
    example: Corpus, example_host: Host, plugins: PluginSet
) -> None:
    seen: dict[str, Evidence] = {}
    case = "order-status-answers-from-a-scripted-lookup"
    _sweep(
        example,
        example_host,
        plugins,
        select=[case],
        on_evidence=lambda c, e: seen.update({c.id: e}),
    )
    (result,) = seen[case].tool_results or []
    scripted = ScriptedTools(example.case(case).tool_results).execute("lookup_order", {})
    assert result.output == scripted.output  # A-2040 is in no order book: the script answered
    assert json.dumps(result.output).count("A-2040") == 1
