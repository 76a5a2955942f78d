"""What the harness costs around a framework's own loop, and the example swept beside Pydantic
Evals over the same Cases.

    uv run --all-groups python bench/hosts.py [--trials 200] [--sizes 100,1000]

1. **Per-Trial harness cost**, in process, for each framework row of :data:`FRAMEWORKS`: the
   same agent run directly with the same scripted model (the framework's own loop, the Case's
   script replayed, nothing of ours) against the same Case swept by the Host
   (``run_sweep``: our binding, the Tool boundary, read-back, scoring, the witness checks).
2. **Side by side with Pydantic Evals**, whole processes (start-up included): ``eval sweep`` of
   the example Corpus with ``--repeat`` against a Pydantic Evals ``Dataset`` of the same Cases
   (the same agent, the same scripted replies, evaluators for the same output and Tool
   Expectations), N Trials each.

A framework adds a row to :data:`FRAMEWORKS` (LangGraph: its corpus, its Host, its direct run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYDANTIC_AI = ROOT / "examples" / "pydantic-ai-support"


@dataclass(frozen=True)
class Framework:
    """One framework row: its example Corpus, its Host, the Case timed, and ``direct(case, n)``
    running the same agent ``n`` times with the Case's script replayed (seconds in all)."""

    name: str
    corpus: Path
    host: str
    case: str
    direct: Callable[[dict[str, Any], int], float]


ROUNDS = 3  # each figure is the best of this many rounds: the machine is shared


def _pydantic_ai_replies(script: list[dict[str, Any]]) -> Any:
    """A pydantic-ai FunctionModel replaying a Case's script: pydantic-ai's own test model. A
    structured step is a call of the agent's output Tool (its JSON as text where it has none),
    as the Host's model answers it."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def response(step: dict[str, Any], info: AgentInfo) -> ModelResponse:
        if step["kind"] == "text":
            return ModelResponse(parts=[TextPart(step["text"])])
        if step["kind"] == "structured" and info.output_tools:
            return ModelResponse(
                parts=[ToolCallPart(info.output_tools[0].name, step["value"], "final-result")]
            )
        if step["kind"] == "structured":
            return ModelResponse(parts=[TextPart(json.dumps(step["value"]))])
        calls = [ToolCallPart(c["name"], c["arguments"], c["callId"]) for c in step["calls"]]
        return ModelResponse(parts=calls)

    cursor = iter(script)

    async def reply(messages: Any, info: AgentInfo) -> Any:
        return response(next(cursor), info)

    return FunctionModel(reply)


def _direct_pydantic_ai(case: dict[str, Any], n: int) -> float:
    sys.path.insert(0, str(PYDANTIC_AI))
    from support_agent.agent import AGENTS, help_centre

    agent = AGENTS[case["agent"]]
    prompt = case["input"][-1]["content"]

    async def runs() -> float:
        async with agent:  # the MCP help centre stays open, as the Host keeps it
            for _ in range(5):  # warm: the first runs pay for lazy set-up
                await agent.run(prompt, model=_pydantic_ai_replies(case["script"]))
            walls = []
            for _ in range(ROUNDS):
                started = time.perf_counter()
                for _ in range(n):
                    await agent.run(prompt, model=_pydantic_ai_replies(case["script"]))
                walls.append(time.perf_counter() - started)
            wall = min(walls)
        await help_centre.client.transport.close()  # fastmcp keeps the child alive otherwise
        return wall

    return asyncio.run(runs())


LANGGRAPH = ROOT / "examples" / "langgraph-triage"


def _direct_langgraph(case: dict[str, Any], n: int) -> float:
    """The triage graph built and run ``n`` times on LangChain's own fake chat model replaying
    the script (``bind_tools`` accepted and ignored, as the replies are fixed)."""
    sys.path.insert(0, str(LANGGRAPH / "src"))
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph_triage.agents import AGENTS as TRIAGE

    class Replayed(FakeMessagesListChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def replies() -> list[Any]:
        return [
            AIMessage(step["text"])
            if step["kind"] == "text"
            else AIMessage(
                "",
                tool_calls=[
                    {"name": c["name"], "args": c["arguments"], "id": c["callId"]}
                    for c in step["calls"]
                ],
            )
            for step in case["script"]
        ]

    async def runs() -> float:
        builder = TRIAGE[case["agent"]]
        started = 0.0
        for index in range(5 + n):  # warm: the first runs pay for lazy set-up
            if index == 5:
                started = time.perf_counter()
            graph = await builder(Replayed(responses=replies()), {})
            await graph.ainvoke({"messages": [HumanMessage(case["input"][-1]["content"])]})
        return time.perf_counter() - started

    return asyncio.run(runs())


FRAMEWORKS: list[Framework] = [
    Framework(
        name="pydantic-ai",
        corpus=PYDANTIC_AI / "corpus",
        host="pydantic-ai",
        case="refund-of-a-delivered-order-looks-it-up-first",
        direct=_direct_pydantic_ai,
    ),
    Framework(
        name="langgraph",
        corpus=LANGGRAPH / "corpus",
        host="langgraph",
        case="tool-choice-billing-ticket-goes-to-billing",
        direct=_direct_langgraph,
    ),
]


def _harness(framework: Framework, n: int) -> float:
    from eval_core._loading.loader import Loader
    from eval_core._plugins.plugins import load_plugins
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding

    plugins = load_plugins()
    host = plugins.hosts[framework.host](framework.corpus)  # it owns its agents: no soul/
    try:
        corpus = Loader(plugins, host, judge="no-judge", needs_soul=False).load(framework.corpus)
        run_sweep(corpus, host, ScriptedBinding(), plugins, select=[framework.case], repeat=5)
        walls = []
        for _ in range(ROUNDS):
            started = time.perf_counter()
            card = run_sweep(
                corpus, host, ScriptedBinding(), plugins, select=[framework.case], repeat=n
            )
            walls.append(time.perf_counter() - started)
        wall = min(walls)
    finally:
        host.close()
    assert all(t.outcome == "passed" for t in card.trials), "the timed Case must pass"
    return wall


def per_trial(trials: int) -> None:
    print(f"per-Trial cost, in process, {trials} Trials of one Case (3 Tool calls' worth of loop)")
    print(f"{'framework':<14}{'direct ms':>11}{'eval ms':>10}{'harness ms':>12}{'ratio':>8}")
    for framework in FRAMEWORKS:
        case = json.loads((framework.corpus / f"{framework.case}.json").read_text())
        direct = framework.direct(case, trials) / trials * 1000
        ours = _harness(framework, trials) / trials * 1000
        print(
            f"{framework.name:<14}{direct:>11.2f}{ours:>10.2f}{ours - direct:>12.2f}"
            f"{ours / direct:>7.1f}x"
        )


def _cases(corpus: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(corpus.glob("*.json"))]


def _eval_sweep(repeat: int, log: Path) -> float:
    command = [
        sys.executable, "-m", "eval_cli", "sweep", str(PYDANTIC_AI / "corpus"),
        "--host", "pydantic-ai", "--repeat", str(repeat), "-q", "--unlocked",
        "--format", "json", "--log", str(log),
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - started
    card = json.loads(done.stdout)
    passed = sum(t["outcome"] == "passed" for t in card["trials"])
    assert passed == len(card["trials"]), done.stderr[-2000:]
    return wall


def _pydantic_evals(repeat: int) -> tuple[float, str]:
    """Its wall time, and how many of its Cases its evaluators passed."""
    command = [sys.executable, __file__, "--pydantic-evals-worker", str(repeat)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - started
    assert done.returncode == 0, done.stderr[-2000:]
    return wall, done.stdout.strip().splitlines()[-1]


def side_by_side(sizes: list[int]) -> None:
    cases = len(_cases(PYDANTIC_AI / "corpus"))
    print(f"\nthe example Corpus ({cases} Cases), whole processes, N Trials each")
    print(
        f"{'N':>6}{'eval sweep s':>14}{'Pydantic Evals s':>18}{'eval ms/Trial':>15}"
        f"{'PE ms/Trial':>13}{'PE passed':>11}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            repeat = max(1, math.ceil(size / cases))
            ours = _eval_sweep(repeat, Path(tmp) / f"trials-{size}.jsonl")
            theirs, passed = _pydantic_evals(repeat)
            trials = repeat * cases
            print(
                f"{trials:>6}{ours:>14.2f}{theirs:>18.2f}{ours / trials * 1000:>15.2f}"
                f"{theirs / trials * 1000:>13.2f}{passed:>11}"
            )


def pydantic_evals_worker(repeat: int) -> None:
    """The same Cases as a Pydantic Evals Dataset: the task runs the agent with the Case's
    script replayed; evaluators score the output and Tool Expectations from the run's history."""
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import Evaluator, EvaluatorContext

    sys.path.insert(0, str(PYDANTIC_AI))
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.usage import UsageLimits
    from support_agent.agent import AGENTS, help_centre

    documents = _cases(PYDANTIC_AI / "corpus")
    support = AGENTS["support"]  # the one with an MCP server, kept open for the whole run

    async def task(inputs: dict[str, Any]) -> dict[str, Any]:
        try:
            result = await AGENTS[inputs["agent"]].run(
                inputs["prompt"],
                model=_pydantic_ai_replies(inputs["script"]),
                usage_limits=UsageLimits(request_limit=8),  # as [tool.eval] sets for the Host
            )
        except Exception as exc:  # a usage limit: how the loop ended
            return {"status": "failed", "text": "", "tools": [], "error": type(exc).__name__}
        tools = [
            part.tool_name
            for message in result.all_messages()
            if isinstance(message, ModelResponse)
            for part in message.parts
            if isinstance(part, ToolCallPart)
        ]
        return {"status": "completed", "text": str(result.output), "tools": tools}

    @dataclass
    class Expectations(Evaluator[dict[str, Any], dict[str, Any], Any]):
        def evaluate(self, ctx: EvaluatorContext[dict[str, Any], dict[str, Any], Any]) -> bool:
            out, ok = ctx.output, True
            for e in ctx.inputs["expect"]:
                kind = e["kind"]
                if kind == "output_contains":
                    ok &= e["text"].lower() in out["text"].lower()
                elif kind == "output_omits":
                    ok &= e["text"].lower() not in out["text"].lower()
                elif kind == "tool_called":
                    ok &= e["name"] in out["tools"]
                elif kind == "tool_not_called":
                    ok &= e["name"] not in out["tools"]
                elif kind == "tool_call_count":
                    named = [t for t in out["tools"] if e.get("name") in (None, t)]
                    ok &= len(named) == e["count"]
                elif kind == "loop_status":
                    ok &= out["status"] == e["status"]
            return ok

    dataset = Dataset[dict[str, Any], dict[str, Any], Any](
        name="pydantic-ai-support",
        cases=[
            Case(
                name=d["id"],
                inputs={
                    "agent": d["agent"],
                    "prompt": d["input"][-1]["content"],
                    "script": d["script"],
                    "expect": d["expect"],
                },
            )
            for d in documents
        ],
        evaluators=[Expectations()],
    )

    async def run() -> Any:
        async with support:
            report = await dataset.evaluate(task, progress=False, repeat=repeat, max_concurrency=1)
        await help_centre.client.transport.close()
        return report

    report = asyncio.run(run())
    passed = sum(all(r.value is True for r in c.assertions.values()) for c in report.cases)
    print(f"{passed}/{len(report.cases)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--pydantic-evals-worker", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pydantic_evals_worker:
        pydantic_evals_worker(args.pydantic_evals_worker)
        return
    os.environ.setdefault("EVAL_NO_PROGRESS", "1")
    per_trial(args.trials)
    side_by_side([int(s) for s in args.sizes.split(",")])


if __name__ == "__main__":
    main()
