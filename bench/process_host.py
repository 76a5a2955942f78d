"""What the process Host costs around an agent process, and how many Trials it runs a second.

    uv run --all-groups python bench/process_host.py [--trials 12] [--jobs 4]

1. **Per Trial, in process**, two agents on the scripted binding, each Trial split into:
   - *the agent's own time*: its process's wall time (start to exit) less the time it spent
     waiting on the harness's server;
   - *serve*: the harness answering the agent's requests (a model call through the binding and
     back in the wire's shape; a Tool call received, witnessed and answered over MCP);
   - *around*: the rest of the Trial: the per-Trial server started and stopped, the
     environment and stdin made, the answer read, every process of the agent checked gone,
     the Evidence scored.
   The agents: ``null`` (``/bin/sh``: reads stdin, prints a fixed answer; no model call: the floor)
   and ``loop`` (``packages/eval-host-process/tests/agents/loop_agent.py``: Python, httpx and
   the MCP SDK; Chat Completions, two model calls and one Tool call over MCP).
2. **Trials/s** of whole ``eval sweep`` processes on the ``loop`` agent: ``--jobs 1`` and
   ``--jobs N`` (forked workers, as the CLI runs a framework Host), and the same N Trials in
   this process on N threads (``run_sweep(jobs=N)``), to show what the forked workers cost.
3. **The fork-server** on the example (``examples/openai-agents-desk``: the OpenAI Agents SDK,
   18 Cases): each Case's Trial in this process, its agent started per Trial
   (``start=spawn``) against forked by the fork-server (``start=fork-server``, the zygote's
   start reported apart), medians of the Trial and of the agent's process; then whole
   ``eval sweep`` processes of the example, each way.

``--parts 3`` runs only the third.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "packages" / "eval-host-process" / "tests"
sys.path.insert(0, str(TESTS))

from process_project import order_case, write_project  # noqa: E402

NULL = """
[agents.null]
command = "/bin/sh -c 'cat >/dev/null; cat answer.json'"
"""


class Clock:
    """Seconds spent serving (model and Tool requests) and in the agent's process, per Trial."""

    def __init__(self) -> None:
        self.serve = 0.0
        self.agent = 0.0


def instrument(clock: Clock) -> None:
    """Time the server's handlers and the agent's process (the Host's own functions, wrapped)."""
    from eval_host_process import host, process, server

    real_endpoint = server.TrialServer._endpoint

    def endpoint(self: Any, wire: Any, answer: Any) -> Callable[..., Any]:
        handler = real_endpoint(self, wire, answer)

        async def timed(request: Any) -> Any:
            started = time.perf_counter()
            try:
                return await handler(request)
            finally:
                clock.serve += time.perf_counter() - started

        return timed

    real_mcp = server._Mcp.__call__

    async def mcp(self: Any, scope: Any, receive: Any, send: Any) -> None:
        started = time.perf_counter()
        try:
            await real_mcp(self, scope, receive, send)
        finally:
            clock.serve += time.perf_counter() - started

    real_run = process.run

    def run(*args: Any, **kwargs: Any) -> Any:
        ended = real_run(*args, **kwargs)
        clock.agent += ended.seconds
        return ended

    server.TrialServer._endpoint = endpoint  # type: ignore[method-assign]
    server._Mcp.__call__ = mcp  # type: ignore[method-assign]
    host.process.run = run  # type: ignore[attr-defined]


def project(root: Path, trials: int) -> Path:
    corpus = write_project(root, timeout=120)
    manifest = root / "agents.toml"
    manifest.write_text(manifest.read_text() + NULL)
    answer = {"answer": "Order A-1 has shipped.", "status": "completed"}
    (root / "answer.json").write_text(json.dumps(answer))
    for agent in ("null", "chat"):
        case = order_case(f"on-{agent}", agent)
        if agent == "null":
            case.update(script=[{"kind": "text", "text": "Order A-1 has shipped."}])
            case.update(platformTools=[], toolResults=[])
            case["expect"] = [{"kind": "output_contains", "text": "A-1"}]
        (corpus / f"on-{agent}.json").write_text(json.dumps(case))
    return corpus


def per_trial(corpus: Path, trials: int, clock: Clock) -> None:
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding
    from eval_core.hosts import Loader, load_plugins
    from eval_host_process.host import ProcessHost

    plugins = load_plugins()
    host = ProcessHost(corpus)
    loaded = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
    print(f"1. per Trial, in process, {trials} Trials each (ms, median)")
    print(
        f"   {'agent':<6} {'Trial':>8} {'agent own':>10} {'serve':>8} {'around':>8}  harness share"
    )
    for agent in ("null", "chat"):
        rows = []
        for _ in range(trials):
            clock.serve = clock.agent = 0.0
            started = time.perf_counter()
            card = run_sweep(loaded, host, ScriptedBinding(), plugins, select=[f"on-{agent}"])
            total = time.perf_counter() - started
            assert [t.outcome for t in card.trials] == ["passed"], card.trials
            rows.append((total, clock.agent - clock.serve, clock.serve, total - clock.agent))
        total, own, serve, around = (statistics.median(r[i] for r in rows) * 1000 for i in range(4))
        share = (serve + around) / total
        name = "loop" if agent == "chat" else agent
        print(f"   {name:<6} {total:8.1f} {own:10.1f} {serve:8.1f} {around:8.1f}  {share:6.1%}")
    host.close()


def _eval_sweep(corpus: Path, case: str, trials: int, jobs: int) -> tuple[float, str]:
    """Seconds of one whole ``eval sweep`` process, and whether it was green."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "eval_cli", "sweep", str(corpus), "--host", "process"]
    command += ["--case", case, "--repeat", str(trials), "--unlocked", "--jobs", str(jobs)]
    ran = subprocess.run(
        command,
        cwd=corpus.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    said = "green" if f"{trials} passed" in ran.stdout else "NOT GREEN: " + ran.stderr[-300:]
    return seconds, said


def sweeps(corpus: Path, trials: int, jobs: int) -> None:
    start, said = _eval_sweep(corpus, "on-null", 1, 1)
    print(
        f"2. the command's own start: `eval sweep` of one null-agent Trial {start:.1f} s ({said})"
    )
    print(f"   Trials/s, the loop agent, {trials} Trials (whole `eval sweep` processes)")
    for run_jobs in (1, jobs):
        seconds, said = _eval_sweep(corpus, "on-chat", trials, run_jobs)
        label = f"eval sweep --jobs {run_jobs}"
        print(f"   {label:<28} {trials / seconds:6.2f} Trials/s  ({seconds:.1f} s, {said})")
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding
    from eval_core.hosts import Loader, load_plugins
    from eval_host_process.host import ProcessHost

    plugins = load_plugins()
    host = ProcessHost(corpus)
    loaded = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
    started = time.perf_counter()
    card = run_sweep(
        loaded, host, ScriptedBinding(), plugins, select=["on-chat"], repeat=trials, jobs=jobs
    )
    seconds = time.perf_counter() - started
    said = "green" if all(t.outcome == "passed" for t in card.trials) else "NOT GREEN"
    label = f"in process, {jobs} threads"
    print(f"   {label:<28} {trials / seconds:6.2f} Trials/s  ({seconds:.1f} s, {said})")
    host.close()


EXAMPLE = ROOT / "examples" / "openai-agents-desk"


def fork_server(jobs: int, clock: Clock) -> None:
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding
    from eval_core.hosts import Loader, load_plugins
    from eval_host_process.host import ProcessHost

    plugins = load_plugins()
    corpus = EXAMPLE / "corpus"
    print("3. the example's Trials, in process, one at a time (s, median of its 18 Cases)")
    print(f"   {'start':<12} {'Trial':>6} {'agent':>6}  first Trial (a zygote's start in it)")
    for start in ("spawn", "fork-server"):
        host = ProcessHost(corpus, start=start)
        loaded = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
        rows = []
        for case in loaded.cases:
            clock.serve = clock.agent = 0.0
            started = time.perf_counter()
            card = run_sweep(loaded, host, ScriptedBinding(), plugins, select=[case.id])
            rows.append((time.perf_counter() - started, clock.agent))
            assert [t.outcome for t in card.trials] == ["passed"], card.trials
        host.close()
        trial, agent = (statistics.median(r[i] for r in rows[1:]) for i in (0, 1))
        print(f"   {start:<12} {trial:6.2f} {agent:6.2f}  {rows[0][0]:.2f}")
    print("   whole `eval sweep` processes of the example (18 Trials)")
    for start in ("spawn", "fork-server"):
        for run_jobs in (1, jobs):
            command = [sys.executable, "-m", "eval_cli", "sweep", "--jobs", str(run_jobs)]
            command += ["--host-option", f"start={start}"]
            started = time.perf_counter()
            ran = subprocess.run(command, cwd=EXAMPLE, capture_output=True, text=True, check=False)
            seconds = time.perf_counter() - started
            said = "green" if "18 passed" in ran.stdout else "NOT GREEN: " + ran.stderr[-300:]
            label = f"start={start} --jobs {run_jobs}"
            print(f"   {label:<28} {seconds:6.1f} s  {18 / seconds:5.2f} Trials/s  ({said})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--parts", default="1,2,3")
    options = parser.parse_args()
    parts = set(options.parts.split(","))
    clock = Clock()
    instrument(clock)
    with tempfile.TemporaryDirectory() as scratch:
        corpus = project(Path(scratch) / "team", options.trials)
        if "1" in parts:
            per_trial(corpus, options.trials, clock)
        if "2" in parts:
            sweeps(corpus, options.trials, options.jobs)
    if "3" in parts:
        fork_server(options.jobs, clock)


if __name__ == "__main__":
    main()
