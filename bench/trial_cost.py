"""Where the CPU of an `eval sweep` goes: start-up, and each Trial's share by phase (issue 32).

    uv run python bench/trial_cost.py [N] [RUNS]     (default N = 1,000 Cases, RUNS = 5)

First the best and median child CPU (user + system) of whole processes: `eval --help`, a
one-Case and an N-Case synthetic L2 Sweep (bench/synthetic.py: one Tool call, four
Expectations, every guard on, the trial log and its transcripts written). CPU, not wall time:
on a shared 2-core machine it is the figure the neighbours' load moves least.

Then one in-process Sweep of the N Cases, run as the console script runs it (the cyclic
collector paused while it starts, what start-up made frozen), with a few functions of the
core timed by thread CPU (`time.thread_time`, no profiler: its overhead would swamp the small
calls), printed per 1,000 Trials: the Host's run with its fixtures around it, scoring, the
witness checks, the Scorecard's admission (`made_safe`) and the trial log's append (the
transcript's encode and its side file). What is left of a Trial is the runner's own
bookkeeping. A report, never a test.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import ROOT, make_corpus

EVAL = str(Path(sys.executable).parent / "eval")


def child_cpu(argv: list[str], runs: int) -> tuple[float, float]:
    """Best and median CPU of ``argv`` as a child process, ``runs`` times."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cpus: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(argv, capture_output=True, check=False, cwd=ROOT, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr[-400:]!r}")
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(cpus), statistics.median(cpus)


PHASES = (
    ("eval_core._running.trial", None, "run_with_fixtures", "the Host's run, fixtures around it"),
    ("eval_core._running.trial", None, "score", "scoring (every Expectation's scorer)"),
    ("eval_core._running.trial", None, "contradictions", "witness checks"),
    (
        "eval_core._running.runner",
        None,
        "made_safe",
        "made_safe (its text made safe for the Scorecard)",
    ),
    ("eval_core._recording.transcript", None, "encode", "trial log: the transcript's encode"),
    ("eval_core._recording.transcript", "Pack", "put", "trial log: its side file"),
    ("eval_core._recording.triallog", "TrialLog", "_write", "trial log: the line"),
    ("eval_core._running.runner", None, "one_by_one", "every Trial, all told"),
)


def _timed(totals: dict[str, float], label: str, function: Callable[..., Any]) -> Any:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            totals[label] = totals.get(label, 0.0) + time.thread_time() - started

    return timed


def phases(corpus: Path) -> tuple[dict[str, float], int]:
    """Thread CPU per phase of one in-process Sweep of ``corpus``, and its exit code."""
    import importlib

    from eval_cli.cli import invoke
    from eval_core.commands import pause_collector

    totals: dict[str, float] = {}
    for module_name, holder, name, label in PHASES:
        module = importlib.import_module(module_name)
        owner = module if holder is None else getattr(module, holder)
        setattr(owner, name, _timed(totals, label, getattr(owner, name)))
    pause_collector()  # as the console script does: start-up frozen before the first Trial
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = invoke(["sweep", str(corpus), "--quiet"])
    return totals, code


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        one = make_corpus(Path(tmp) / "one", 1)
        many = make_corpus(Path(tmp) / "many", n)
        for corpus in (one, many):  # warm the caches (fingerprints, manifests, schemas)
            child_cpu([EVAL, "sweep", str(corpus), "--quiet"], 1)
        print(f"whole processes, CPU best / median of {runs}:")
        for label, argv in (
            ("eval --help", [EVAL, "--help"]),
            ("one-Case Sweep", [EVAL, "sweep", str(one), "--quiet"]),
            (f"{n:,}-Case Sweep", [EVAL, "sweep", str(many), "--quiet"]),
        ):
            best, median = child_cpu(argv, runs)
            print(f"  {label:<18} {best:6.3f} s  {median:6.3f} s")
        totals, code = phases(many)
    if code != 0:
        raise SystemExit(f"the in-process Sweep exited {code}")
    print(f"\nper 1,000 Trials, thread CPU (one in-process Sweep of {n:,} Cases):")
    scale = 1000 / n
    for _, _, _, label in PHASES:
        print(f"  {totals.get(label, 0.0) * scale * 1000:7.1f} ms  {label}")
    accounted = sum(
        totals.get(label, 0.0) for _, _, _, label in PHASES if label != "every Trial, all told"
    )
    rest = totals.get("every Trial, all told", 0.0) - accounted
    print(f"  {rest * scale * 1000:7.1f} ms  the runner's own bookkeeping (the rest)")


if __name__ == "__main__":
    main()
