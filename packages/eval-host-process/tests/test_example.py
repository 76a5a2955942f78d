"""The OpenAI Agents SDK example, run as a process: green on the scripted binding and once over
the loopback OpenAI wire, its red-by-design Case named, and red under a mutation of the
example agent's own code (a Tool call dropped, its instructions cut, a Tool answered without
calling the server): the harness sees what the agent did, not what it says."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_core.hosts import Corpus, Evidence, Loader, PluginSet
from eval_core.records import Scorecard
from eval_host_process.host import ProcessHost

EXAMPLE = Path(__file__).parents[3] / "examples" / "openai-agents-desk"
CORPUS = EXAMPLE / "corpus"
AGENT = "desk/agent.py"
SEAM = "\n\ndef build("  # where a mutation's code goes in the agent's module
JOBS = 4


def _sweep(corpus: Corpus, host: Any, plugins: PluginSet, **options: Any) -> Scorecard:
    from eval_core._running.runner import run_sweep  # the in-process Sweep the CLI runs
    from eval_core._running.scripted import ScriptedBinding

    binding = options.pop("binding", ScriptedBinding())
    return run_sweep(corpus, host, binding, plugins, jobs=JOBS, **options)


@pytest.fixture(scope="module")
def example_host() -> Iterator[ProcessHost]:
    host = ProcessHost(CORPUS)  # lists the desk's Tools from its own MCP server, once
    yield host
    host.close()


@pytest.fixture(scope="module")
def example(plugins: PluginSet, example_host: ProcessHost) -> Corpus:
    return Loader(plugins, example_host, judge="no-judge", needs_soul=False).load(CORPUS)


def test_the_example_sweeps_green_on_the_scripted_binding(
    example: Corpus, example_host: ProcessHost, plugins: PluginSet
) -> None:
    seen: dict[str, Evidence] = {}
    card = _sweep(
        example, example_host, plugins, on_evidence=lambda c, e: seen.__setitem__(c.id, e)
    )
    assert len(card.trials) >= 15
    assert {t.case_id: t.error or t.outcome for t in card.trials if t.outcome != "passed"} == {}
    # the desk's real Tools answered where the Case scripts none (proxied, witnessed here)...
    refund = seen["refund-of-a-delivered-order-looks-it-up-first"].tool_results or []
    assert [(r.name, r.status) for r in refund] == [
        ("lookup_order", "succeeded"),
        ("refund_order", "succeeded"),
    ]
    assert refund[1].output["refund_id"] == "R-B-100"
    # ...a fresh order book each Trial: B-100 was refunded above, and is delivered here
    undelivered = seen["refund-of-an-undelivered-order-is-refused-by-the-desk"].tool_results or []
    assert [(r.status, "not delivered" in (r.reason or "")) for r in undelivered] == [
        ("failed", True)
    ]
    # ...the Case's script where it scripts one (B-777 is in no order book)
    (scripted,) = seen["a-scripted-lookup-answers-from-the-case"].tool_results or []
    assert scripted.output["eta"] == "2026-12-24"
    # the internal Tool ran inside the agent: the harness served and saw no call of it
    internal = seen["a-shipping-estimate-comes-from-the-agent-s-own-tool"]
    assert internal.tool_calls == [] and internal.output_text.startswith("A standard parcel")
    # both wires: the Responses API (desk) and streamed Chat Completions (desk_chat)
    assert (
        seen["instructions-reach-the-model"]
        .model_requests[0]
        .system.startswith("You are the Trailhead Outfitters support desk.")
    )


def test_the_red_by_design_case_names_its_reason(
    plugins: PluginSet, example_host: ProcessHost
) -> None:
    loader = Loader(plugins, example_host, judge="no-judge", needs_soul=False)
    red = loader.load(CORPUS / "red-by-design")
    (trial,) = _sweep(red, example_host, plugins).trials
    assert trial.outcome == "failed"
    assert [e.detail for e in trial.expectations if not e.passed] == [
        'answer "Order B-300 (camping stove) is processing. Note: INTERNAL: stock check '
        'pending." contains "INTERNAL"'
    ]


LOOPBACK = [
    "order-status-is-looked-up",
    "order-status-over-streamed-chat-completions",
    "refund-of-a-delivered-order-looks-it-up-first",
    "warranty-question-and-order-lookup-in-one-batch",
    "cancellation-is-passed-to-a-supervisor",
]


def test_the_example_sweeps_green_once_over_the_loopback_openai_wire(
    example: Corpus, example_host: ProcessHost, plugins: PluginSet
) -> None:
    from tests.conftest import loopback_wire

    with loopback_wire(example, LOOPBACK) as (vendor, binding):
        card = _sweep(example, example_host, plugins, binding=binding, select=LOOPBACK)
    assert {t.case_id: t.error or t.outcome for t in card.trials} == dict.fromkeys(
        LOOPBACK, "passed"
    )
    assert all(t.usage.input_tokens == 100 * t.model_calls for t in card.trials)
    first = vendor.bodies[0]  # what reached the vendor: the agent's prompt and Tools, relayed
    assert first["model"] == "loopback-2025-01-01"
    assert first["messages"][0]["content"].startswith("You are the Trailhead Outfitters")
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"lookup_order", "refund_order", "cancel_order", "search_policy", "shipping_days"} <= (
        offered
    )
    assert "sk-loopback" not in str(vendor.bodies)  # the real key stayed with the harness


def _mutant(tmp_path: Path, plugins: PluginSet, code: str) -> tuple[Corpus, ProcessHost]:
    """A copy of the example whose agent module has ``code`` added (the mutation)."""
    copy = tmp_path / "desk-mutant"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("scorecards", "__pycache__"))
    agent = copy / AGENT
    source = agent.read_text()
    assert SEAM in source
    agent.write_text(source.replace(SEAM, "\n\n" + code + SEAM, 1))
    host = ProcessHost(copy / "corpus")
    return Loader(plugins, host, judge="no-judge", needs_soul=False).load(copy / "corpus"), host


ANSWERED_WITHOUT_THE_SERVER = """
from mcp.types import CallToolResult, TextContent

_call = MCPServerStreamableHttp.call_tool


async def _answered(self, tool_name, arguments, meta=None):
    if tool_name == "{tool}":
        return CallToolResult(content=[TextContent(type="text", text={answer!r})])
    return await _call(self, tool_name, arguments, meta)


MCPServerStreamableHttp.call_tool = _answered
"""

INSTRUCTIONS_CUT = """
INSTRUCTIONS = INSTRUCTIONS.split("- Never call cancel_order")[0]
"""


@pytest.mark.parametrize(
    ("mutation", "cases", "failing"),
    [
        pytest.param(  # the agent drops its refund calls: the model is told "", no refund runs
            ANSWERED_WITHOUT_THE_SERVER.format(tool="refund_order", answer=""),
            ["refund-of-a-delivered-order-looks-it-up-first"],
            {
                "tool_call_order",
                "tool_argument_equals",
                "tool_argument_present",
                "tool_argument_absent",
            },
            id="a-tool-call-dropped",
        ),
        pytest.param(  # the agent answers lookups itself, from a made-up order
            ANSWERED_WITHOUT_THE_SERVER.format(
                tool="lookup_order", answer='{"found": true, "status": "shipped"}'
            ),
            ["order-status-is-looked-up", "order-status-over-streamed-chat-completions"],
            {"tool_called", "tool_argument_equals"},
            id="a-tool-answered-without-calling-the-server",
        ),
        pytest.param(
            INSTRUCTIONS_CUT,
            ["cancellation-is-passed-to-a-supervisor", "instructions-reach-the-model"],
            {"prompt_contains"},
            id="its-instructions-cut",
        ),
    ],
)
def test_a_mutation_of_the_agent_s_own_code_turns_its_cases_red(
    plugins: PluginSet, tmp_path: Path, mutation: str, cases: list[str], failing: set[str]
) -> None:
    corpus, host = _mutant(tmp_path, plugins, mutation)
    try:
        card = _sweep(corpus, host, plugins, select=cases)
    finally:
        host.close()
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(cases, "failed"), [
        t.error for t in card.trials
    ]
    for trial in card.trials:
        assert {e.kind for e in trial.expectations if not e.passed} == failing, trial.case_id
