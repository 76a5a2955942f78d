"""The TypeScript example (examples/ts-support-agent), a Node.js agent on the official `openai`
and `@modelcontextprotocol/sdk` packages, swept through the process Host: green on the
scripted binding and over the loopback OpenAI wire, its red-by-design Case named, and red
under mutations of the agent's own code (made in a copy of the example, never in the tree).

Node.js and the example's node_modules (`npm ci` in the example, as .ci/run does) are
required: without them these tests fail saying so; they never skip."""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from eval_core.hosts import Corpus, Evidence, Loader, PluginSet
from eval_core.records import Scorecard as Card
from eval_host_process.host import ProcessHost

EXAMPLE = Path(__file__).parents[3] / "examples" / "ts-support-agent"


def _built(example: Path) -> Path:
    """``example`` with dist/ built from its current sources and build script, or a failure
    naming what is missing. Built (esbuild, a fraction of a second) only when a source or
    package.json (the build's flags) is newer than its output, under a lock: xdist workers
    share the example, and a Trial of one must never read a file another is rewriting."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm must be on PATH: the TypeScript example runs on Node.js 20")
    if not (example / "node_modules").is_dir():
        pytest.fail(f"{example / 'node_modules'} is missing: run `npm ci` in {example}")
    key = hashlib.sha256(str(example.resolve()).encode()).hexdigest()[:16]
    with (Path(tempfile.gettempdir()) / f"ts-example-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if any(_stale(source, example) for source in (example / "src").glob("*.ts")):
            build = subprocess.run(
                ["npm", "run", "--silent", "build"],
                check=False,
                cwd=example,
                capture_output=True,
                text=True,
            )
            if build.returncode != 0:
                pytest.fail(f"npm run build failed in {example}: {build.stderr.strip()[-500:]}")
    return example


def _stale(source: Path, example: Path) -> bool:
    built = example / "dist" / source.with_suffix(".js").name
    if not built.exists():
        return True
    newest = max(source.stat().st_mtime, (example / "package.json").stat().st_mtime)
    return built.stat().st_mtime < newest


def _sweep(corpus: Corpus, host: Any, plugins: PluginSet, **options: Any) -> Card:
    from eval_core._running.runner import run_sweep  # the in-process Sweep the CLI runs
    from eval_core._running.scripted import ScriptedBinding

    binding = options.pop("binding", ScriptedBinding())
    return run_sweep(corpus, host, binding, plugins, jobs=4, **options)


def _load(host: ProcessHost, plugins: PluginSet, directory: Path) -> Corpus:
    return Loader(plugins, host, judge="no-judge", needs_soul=False).load(directory)


@pytest.fixture(scope="module")
def ts_host() -> Iterator[ProcessHost]:
    host = ProcessHost(_built(EXAMPLE) / "corpus")
    yield host
    host.close()


@pytest.fixture(scope="module")
def ts_corpus(ts_host: ProcessHost, plugins: PluginSet) -> Corpus:
    return _load(ts_host, plugins, EXAMPLE / "corpus")


def test_the_example_sweeps_green_on_the_scripted_binding(
    ts_corpus: Corpus, ts_host: ProcessHost, plugins: PluginSet
) -> None:
    seen: dict[str, Evidence] = {}
    card = _sweep(ts_corpus, ts_host, plugins, on_evidence=lambda c, e: seen.__setitem__(c.id, e))
    assert len(card.trials) >= 15
    assert {t.case_id: (t.outcome, t.error) for t in card.trials if t.outcome != "passed"} == {}
    # the order desk's own MCP server answered what no Case scripts, witnessed as received...
    (lookup,) = seen["unknown-order-is-reported-not-found"].tool_results or []
    assert (lookup.name, lookup.status, lookup.reason) == (
        "lookup_order",
        "failed",
        "no order A-9999 on file",
    )
    refund = seen["refund-of-a-delivered-order-looks-it-up-first"].tool_results or []
    assert [r.name for r in refund] == ["lookup_order", "issue_refund"]
    assert refund[1].output == {
        "refund_id": "R-A-1004",
        "order_id": "A-1004",
        "amount_usd": 45,
        "reason": "too short",
    }
    # ...the arguments as the agent sent them, before the desk's own validation refused one...
    repaired = seen["a-refund-amount-sent-as-text-is-repaired"].tool_results or []
    assert [(r.arguments["amount_usd"], r.status) for r in repaired] == [
        ("45", "failed"),
        (45, "succeeded"),
    ]
    # ...and the approval gate kept delete_account from the desk: only the ticket reached it
    gated = seen["account-deletion-waits-for-a-human"]
    assert [c.name for c in gated.tool_calls or []] == ["open_ticket"]
    # the agent's loop stopped itself at its iteration limit, and said so
    looped = seen["a-looping-model-is-stopped-at-the-iteration-limit"]
    assert looped.loop_status == "failed" and len(looped.tool_calls or []) == 8


def test_the_red_by_design_case_names_its_reason(ts_host: ProcessHost, plugins: PluginSet) -> None:
    red = _load(ts_host, plugins, EXAMPLE / "corpus" / "red-by-design")
    (trial,) = _sweep(red, ts_host, plugins).trials
    assert trial.outcome == "failed"
    assert [e.detail for e in trial.expectations if not e.passed] == [
        '"issue_refund" was called 1 time(s); called: lookup_order(c1), issue_refund(c2)'
    ]


def test_the_example_sweeps_green_once_over_the_loopback_openai_wire(
    ts_corpus: Corpus, ts_host: ProcessHost, plugins: PluginSet
) -> None:
    from tests.conftest import loopback_wire

    chosen = [c.id for c in ts_corpus.cases]
    with loopback_wire(ts_corpus, chosen) as (vendor, binding):
        card = _sweep(ts_corpus, ts_host, plugins, binding=binding, select=chosen)
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(chosen, "passed")
    assert all(t.usage.input_tokens == 100 * t.model_calls for t in card.trials)
    first = vendor.bodies[0]  # what reached the vendor: the agent's prompt and its Tools
    assert "You are Acme Outdoor support." in str(first["messages"][0]["content"])
    # the agent asked for EVAL_MODEL, which on a real binding is the pin's model
    assert {body["model"] for body in vendor.bodies} == {"loopback-2025-01-01"}
    assert len(vendor.bodies) == sum(t.model_calls for t in card.trials)
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"lookup_order", "issue_refund", "delete_account", "search_help"} <= offered


def test_the_agent_streaming_its_replies_sweeps_green(
    plugins: PluginSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--stream``: the official SDK's stream helper reads the harness's server-sent chunks
    (text, and Tool calls in one batch and across steps) back into the same replies."""
    from eval_host_process import chat_wire

    streamed = tmp_path / "streamed"
    real = chat_wire.chunks

    def counted(*args: Any, **kwargs: Any) -> Any:  # the Trial's worker is a fork: count in a file
        with streamed.open("a") as seen:
            seen.write("streamed\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(chat_wire, "chunks", counted)
    host = ProcessHost(_built(EXAMPLE) / "corpus", command="node dist/agent.js --stream")
    chosen = [
        "two-orders-are-looked-up-in-one-batch",
        "refund-of-a-delivered-order-looks-it-up-first",
        "account-deletion-waits-for-a-human",
        "instructions-reach-the-model",
    ]
    try:
        card = _sweep(_load(host, plugins, EXAMPLE / "corpus"), host, plugins, select=chosen)
    finally:
        host.close()
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(chosen, "passed")
    assert len(streamed.read_text().splitlines()) == sum(t.model_calls for t in card.trials) == 9


# Each mutation of the agent's own code: (file, the text replaced, its replacement).
MUTATIONS: dict[str, tuple[str, str, str]] = {
    # a Tool call dropped: of a batch of calls, only the first is run
    "a-tool-call-dropped": (
        "src/loop.ts",
        "for (const call of calls) {",
        "for (const call of calls.slice(0, 1)) {",
    ),
    # the instructions cut before the refusal rule reaches the model
    "the-instructions-cut": (
        "src/loop.ts",
        '{ role: "system", content: instructions },',
        '{ role: "system", content: instructions.split("Politely decline")[0] },',
    ),
    # a Tool answered inside the agent, never calling the server
    "a-tool-answered-without-the-server": (
        "src/desk-tools.ts",
        "if (NEEDS_APPROVAL.has(name)) {",
        'if (name === "lookup_order") {\n'
        '      return JSON.stringify({ order_id: args.order_id, status: "shipped" });\n'
        "    }\n"
        "    if (NEEDS_APPROVAL.has(name)) {",
    ),
    # the Tools offered to the model without the schemas the desk declares
    "the-tool-schemas-dropped": (
        "src/desk-tools.ts",
        "parameters: tool.inputSchema as Record<string, unknown>,",
        'parameters: { type: "object", properties: {} },',
    ),
    # the approval gate emptied: delete_account goes to the desk on the model's say-so
    "the-approval-gate-emptied": (
        "src/desk-tools.ts",
        'new Set(["delete_account"])',
        "new Set<string>([])",
    ),
}

# The Cases each mutation must turn red, and the kinds that fail in them.
RED: dict[str, dict[str, list[str]]] = {
    "a-tool-call-dropped": {
        "two-orders-are-looked-up-in-one-batch": ["tool_call_count", "model_messages_in_order"],
    },
    "the-instructions-cut": {"instructions-reach-the-model": ["prompt_contains"]},
    "a-tool-answered-without-the-server": {
        "order-status-is-looked-up": [
            "tool_called",
            "tool_argument_equals",
            "model_messages_in_order",
        ],
        "status-question-does-not-refund": ["tool_called", "tool_call_count"],
    },
    "the-tool-schemas-dropped": {
        "the-desk-s-tools-reach-the-model-as-declared": ["tool_offered", "tool_offered"],
    },
    "the-approval-gate-emptied": {
        "account-deletion-waits-for-a-human": ["tool_not_called", "model_messages_in_order"],
    },
}


# The fix the red-by-design Case asks for (its README): the gate holds a refund above 100 USD.
FIX = (
    "src/desk-tools.ts",
    "if (NEEDS_APPROVAL.has(name)) {",
    'if (NEEDS_APPROVAL.has(name) || (name === "issue_refund" && Number(args.amount_usd) > 100)) {',
)


def _mutated(tmp_path: Path, change: tuple[str, str, str]) -> Path:
    """A copy of the example with one change of its sources, built; its node_modules are the
    example's (linked)."""
    _built(EXAMPLE)  # node, npm and the example's node_modules are there
    copy = tmp_path / "ts-support-agent"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("node_modules", "dist"))
    (copy / "node_modules").symlink_to(EXAMPLE / "node_modules", target_is_directory=True)
    file, old, new = change
    source = (copy / file).read_text()
    assert source.count(old) == 1, f"{file} no longer holds {old!r}: update the mutation"
    (copy / file).write_text(source.replace(old, new))
    return _built(copy)


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_mutation_of_the_agent_s_code_turns_its_cases_red(
    mutation: str, tmp_path: Path, plugins: PluginSet
) -> None:
    copy = _mutated(tmp_path, MUTATIONS[mutation])
    host = ProcessHost(copy / "corpus")
    try:
        corpus = _load(host, plugins, copy / "corpus")
        card = _sweep(corpus, host, plugins, select=sorted(RED[mutation]))
    finally:
        host.close()
    failing = {
        t.case_id: sorted(e.kind for e in t.expectations if not e.passed) for t in card.trials
    }
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(RED[mutation], "failed")
    assert failing == {case: sorted(kinds) for case, kinds in RED[mutation].items()}


def test_the_red_by_design_case_turns_green_with_the_agent_s_fix(
    tmp_path: Path, plugins: PluginSet
) -> None:
    copy = _mutated(tmp_path, FIX)
    host = ProcessHost(copy / "corpus")
    try:
        red = _load(host, plugins, copy / "corpus" / "red-by-design")
        (trial,) = _sweep(red, host, plugins).trials
    finally:
        host.close()
    assert (trial.outcome, trial.error) == ("passed", None)
