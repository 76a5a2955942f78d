"""This project beside its anchors, one run, whole processes, the same synthetic work (issue 49).

    uv run python bench/peers.py [--sizes 100,1000] [--runs 3] [--installed]
        [--promptfoo DIR | $PEERS_PROMPTFOO]     a folder where `npm i promptfoo@0.121` ran
        [--inspect PYTHON | $PEERS_INSPECT]      a Python with inspect-ai installed
        [--pydantic PYTHON | $PEERS_PYDANTIC]    a Python with pydantic-evals (default: this one)

Each harness evaluates N Cases of one support question: the agent calls one Tool
(``lookup_ticket``) and answers; the Case checks the answer.

- this project: ``eval sweep`` of bench/synthetic.py's Corpus (the workspace's editable
  install, or with ``--installed`` as a team meets it: the wheels built from this checkout
  installed into a fresh virtual environment, as the peers are installed) (one Tool call, four
  Expectations, every guard and witness check on, the trial log and its transcripts written),
  with warm caches (``EVAL_CACHE_DIR`` filled by a first Sweep) and with an empty cache
  directory each run (cold);
- Pydantic Evals: a ``Dataset`` run over a pydantic-ai ``Agent`` whose ``FunctionModel`` asks
  for the Tool once, then answers; a ``Contains`` evaluator;
- promptfoo: the ``echo`` provider, one ``contains`` assertion per test, no cache, nothing written;
- Inspect AI: ``mockllm/model`` generating, an ``includes`` scorer, no display.

A peer not found is skipped and said so. Times are wall seconds, the median of ``--runs`` (at
least 3) after one warm-up of each command, with the child's CPU beside them (on a shared
machine the figure the neighbours move least); ratios are peer time / our time, warm and cold.
Also printed: ``eval --help`` and a one-Case Sweep (the start-up every process pays). A report,
never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import ROOT, make_corpus

EVAL = str(Path(sys.executable).parent / "eval")


def installed(work: Path) -> str:
    """``eval`` installed as a team installs it: this checkout's wheels (``uv build``) in a
    fresh virtual environment, ``offline-eval-harness[agent-runtime]`` from them (third-party
    packages from the index or uv's cache), its modules compiled once as pip would."""
    dist, venv = work / "dist", work / "venv"
    python = str(venv / "bin" / "python")
    for argv in (
        ["uv", "build", "--all-packages", "--wheel", "-q", "-o", str(dist)],
        ["uv", "venv", "-q", "--python", sys.executable, str(venv)],
        [
            "uv", "pip", "install", "-q", "--compile-bytecode", "--python", python,
            "--find-links", str(dist), "offline-eval-harness[agent-runtime]",
        ],
    ):  # fmt: skip
        done = subprocess.run(argv, capture_output=True, check=False, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: {done.stderr.decode(errors='replace')[-600:]}")
    return str(venv / "bin" / "eval")


PYDANTIC_EVALS = '''
import sys
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import FunctionModel
from pydantic_evals import Case, Dataset
from pydantic_evals.evaluators import Contains

def model(messages, info):
    returned = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
    if returned:
        order = returned[0].content["orderId"]
        return ModelResponse(parts=[TextPart(f"Order {order} is packed and ships soon.")])
    ticket = str(messages[-1].parts[-1].content).rsplit(" ", 1)[-1].rstrip(".")
    return ModelResponse(parts=[ToolCallPart("lookup_ticket", {"ticketId": ticket}, "c1")])

agent = Agent(FunctionModel(model), system_prompt="You are Support for a bulb shop.")

@agent.tool_plain
def lookup_ticket(ticketId: str) -> dict:
    """Looks up a support ticket by its id."""
    return {"ticketId": ticketId, "orderId": ticketId[2:], "status": "packed"}

async def task(question: str) -> str:
    return (await agent.run(question)).output

n = int(sys.argv[1])
cases = [Case(name=f"case-{i}", inputs=f"When will order {i} ship? It is ticket T-{i}.")
         for i in range(n)]
dataset = Dataset(name="peers", cases=cases, evaluators=[Contains("packed")])
report = dataset.evaluate_sync(task, progress=False)
failed = [c.name for c in report.cases if not all(a.value for a in c.assertions.values())]
sys.exit(1 if failed or len(report.cases) != n else 0)
'''

INSPECT = """
import json
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

@tool
def lookup_ticket():
    async def execute(ticketId: str):
        '''Looks up a support ticket by its id.

        Args:
            ticketId: Ticket id, for example T-1042.
        '''
        return json.dumps({"ticketId": ticketId, "orderId": ticketId[2:], "status": "packed"})
    return execute

def outputs(messages, tools, tool_choice, config):
    last = messages[-1]
    if last.role == "tool":
        order = json.loads(last.text)["orderId"]
        out = ModelOutput.from_content("mockllm", f"Order {order} is packed and ships soon.")
    else:
        ticket = last.text.rsplit(" ", 1)[-1].rstrip(".")
        out = ModelOutput.for_tool_call("mockllm", "lookup_ticket", {"ticketId": ticket})
    out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)  # no tokenizer
    return out

n = int(sys.argv[1])
samples = [Sample(input=f"When will order {i} ship? It is ticket T-{i}.", target="packed")
           for i in range(n)]
task = Task(dataset=samples, solver=[use_tools(lookup_ticket()), generate()], scorer=includes())
model = get_model("mockllm/model", custom_outputs=outputs)
logs = eval(task, model=model, display="none", log_dir=sys.argv[2])
ok = logs and logs[0].status == "success"
ok = ok and logs[0].results.scores[0].metrics["accuracy"].value == 1
print(logs[0].status if logs else "no log", file=sys.stderr)
sys.exit(0 if ok else 1)
"""


def promptfoo_config(directory: Path, n: int) -> Path:
    tests = [
        {
            "vars": {"order": str(i), "ticket": f"T-{i}"},
            "assert": [{"type": "contains", "value": f"ticket T-{i}"}],
        }
        for i in range(n)
    ]
    config = {
        "description": "peers bench",
        "providers": ["echo"],
        "prompts": ["When will order {{order}} ship? It is ticket {{ticket}}."],
        "tests": tests,
    }
    path = directory / f"promptfoo-{n}.json"
    path.write_text(json.dumps(config))
    return path


def timed(
    argv: list[str], env: dict[str, str], cwd: Path, fresh: Path | None
) -> tuple[float, float]:
    """Wall and child CPU seconds of one run; ``fresh`` is emptied first (a cold cache)."""
    if fresh is not None:
        shutil.rmtree(fresh, ignore_errors=True)
        fresh.mkdir(parents=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False, cwd=cwd, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout)[-600:].decode(errors="replace")
        raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {tail}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def median_of(
    argv: list[str], runs: int, env: dict[str, str], cwd: Path, fresh: Path | None = None
) -> tuple[float, float]:
    timed(argv, env, cwd, fresh)  # warm-up: the OS's file cache, bytecode, node's compile cache
    walls, cpus = zip(*(timed(argv, env, cwd, fresh) for _ in range(runs)), strict=True)
    return statistics.median(walls), statistics.median(cpus)


Peer = tuple[list[str], dict[str, str], Path]
Results = dict[str, dict[int, tuple[float, float]]]


def runs_python(python: str, code: str) -> bool:
    """Whether ``python`` exists and runs ``code`` (the peer is installed there)."""
    try:
        return (
            subprocess.run([python, "-c", code], capture_output=True, check=False).returncode == 0
        )
    except OSError:
        return False


def found_peers(
    args: argparse.Namespace, base: dict[str, str], work: Path
) -> dict[str, Peer | None]:
    """Each anchor's command, environment and folder, or ``None`` where it is not installed."""
    peers: dict[str, Peer | None] = {}
    script = work / "pydantic_evals_peer.py"
    script.write_text(PYDANTIC_EVALS)
    found = runs_python(args.pydantic, "import pydantic_evals, pydantic_ai")
    peers["Pydantic Evals"] = ([args.pydantic, str(script)], base, work) if found else None
    binary = Path(args.promptfoo) / "node_modules" / ".bin" / "promptfoo"
    quiet = {
        **base,
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CACHE_ENABLED": "false",
        "PROMPTFOO_CONFIG_DIR": str(work / "promptfoo-home"),
    }
    peers["promptfoo"] = ([str(binary)], quiet, work) if binary.exists() else None
    script = work / "inspect_peer.py"
    script.write_text(INSPECT)
    found = runs_python(args.inspect, "import inspect_ai")
    peers["Inspect AI"] = ([args.inspect, str(script)], base, work) if found else None
    return peers


def peer_argv(name: str, command: list[str], n: int, work: Path) -> list[str]:
    if name == "promptfoo":
        config = promptfoo_config(work, n)
        argv = [*command, "eval", "-c", str(config), "--no-cache", "--no-write"]
        return [*argv, "--no-table", "--no-progress-bar", "--no-share", "-j", "4"]
    if name == "Inspect AI":
        return [*command, str(n), str(work / "inspect-logs")]
    return [*command, str(n)]


def start_up(work: Path, runs: int, warm: dict[str, str], cold: dict[str, str], ours: str) -> None:
    """What every process pays before its first Trial: ``eval --help``, a one-Case Sweep, and
    the floor under both (the interpreter with the libraries the card names imported: no
    Sweep of ours can start in less)."""
    one = make_corpus(work / "one", 1)
    python = str(Path(ours).parent / "python")
    print(f"start-up, wall / CPU, median of {runs}:")
    for label, argv in (
        ("floor: msgspec, typer", [python, "-c", "import msgspec, pluggy, typer"]),
        ("eval --help", [ours, "--help"]),
        ("one-Case Sweep, warm", [ours, "sweep", str(one), "--quiet"]),
    ):
        wall, cpu = median_of(argv, runs, warm, ROOT)
        print(f"  {label:<22} {wall:6.3f} s  {cpu:6.3f} s")
    fresh = Path(cold["EVAL_CACHE_DIR"])
    wall, cpu = median_of([ours, "sweep", str(one), "--quiet"], runs, cold, ROOT, fresh)
    print(f"  {'one-Case Sweep, cold':<22} {wall:6.3f} s  {cpu:6.3f} s")


def report(results: Results, sizes: list[int], runs: int, skipped: list[str]) -> None:
    print(f"\nwhole processes, wall seconds (CPU), median of {runs}:")
    head = "  ".join(f"{f'N={n}':>16}" for n in sizes)
    print(f"  {'harness':<22}{head}")
    for name, by_size in results.items():
        row = "  ".join(f"{by_size[n][0]:7.3f} ({by_size[n][1]:6.3f})" for n in sizes)
        print(f"  {name:<22}{row}")
    ours_warm, ours_cold = results["this project, warm"], results["this project, cold"]
    for measure, what in ((0, "wall time"), (1, "CPU")):  # CPU: what a loaded machine moves least
        print(f"\nratios, peer {what} / our {what} (warm | cold):")
        for name, by_size in results.items():
            if name.startswith("this project"):
                continue
            row = "  ".join(
                f"N={n}: {by_size[n][measure] / ours_warm[n][measure]:5.1f}x | "
                f"{by_size[n][measure] / ours_cold[n][measure]:5.1f}x"
                for n in sizes
            )
            print(f"  {name:<16} {row}")
    if len(sizes) > 1:
        lo, hi = sizes[0], sizes[-1]
        per = [(ours_warm[hi][i] - ours_warm[lo][i]) / (hi - lo) * 1000 for i in (0, 1)]
        print(f"\nour marginal cost per Case, warm: {per[0]:.3f} ms wall, {per[1]:.3f} ms CPU")
    for name in skipped:
        print(f"skipped {name}: not found (see --help for where it is looked for)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--promptfoo", default=os.environ.get("PEERS_PROMPTFOO", "/tmp/peers"))
    parser.add_argument(
        "--inspect", default=os.environ.get("PEERS_INSPECT", "/tmp/peers-venv/bin/python")
    )
    parser.add_argument("--pydantic", default=os.environ.get("PEERS_PYDANTIC", sys.executable))
    parser.add_argument(
        "--installed",
        action="store_true",
        help="sweep with this checkout's wheels installed in a fresh venv (a team's install)",
    )
    args = parser.parse_args()
    runs = max(3, args.runs)
    sizes = [int(s) for s in args.sizes.split(",")]
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    results: Results = {}
    with tempfile.TemporaryDirectory(prefix="peers-") as tmp:
        work = Path(tmp)
        warm = {**base, "EVAL_CACHE_DIR": str(work / "cache-warm")}
        cold = {**base, "EVAL_CACHE_DIR": str(work / "cache-cold")}
        ours = installed(work) if args.installed else EVAL
        print(f"this project: {ours} ({'wheels' if args.installed else 'the workspace'})")
        start_up(work, runs, warm, cold, ours)
        peers = found_peers(args, base, work)
        for n in sizes:
            sweep = [ours, "sweep", str(make_corpus(work / f"corpus-{n}", n)), "--quiet"]
            results.setdefault("this project, warm", {})[n] = median_of(sweep, runs, warm, ROOT)
            fresh = Path(cold["EVAL_CACHE_DIR"])
            results.setdefault("this project, cold", {})[n] = median_of(
                sweep, runs, cold, ROOT, fresh
            )
            for name, how in peers.items():
                if how is not None:
                    command, env, cwd = how
                    argv = peer_argv(name, command, n, work)
                    results.setdefault(name, {})[n] = median_of(argv, runs, env, cwd)
    report(results, sizes, runs, [name for name, how in peers.items() if how is None])


if __name__ == "__main__":
    main()
