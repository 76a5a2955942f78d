"""What `--executor ray` costs: Ray's start-up, a worker's readiness, and each Trial's overhead.

    uv run python bench/ray_executor.py [N] [--real M] [--delay S]   (default N=200, M=100)

1. Whole processes on N synthetic L2 Cases (one Tool call each, the scripted binding):
   `eval sweep` one by one, `--jobs 2`, and `--executor ray` (a local Ray instance started
   by the command and stopped after it). For Ray the progress lines give the instance's
   start-up and the workers' readiness (each loads the plug-ins, the Corpus it was sent and
   holds it to the corpusHash); the Trials' own wall time is what remains.
2. In process, Ray already up (the cost a cluster's driver pays once the cluster runs): the
   same N Trials on `--executor ray`, open (workers ready) and Trials timed apart.
3. A real model over loopback: M Cases (one model call each) against an OpenAI-wire vendor on
   127.0.0.1 answering after S seconds (default 0.3), whole processes: one by one,
   `--jobs 16`, and `--executor ray --jobs 16`.

Medians of ``--runs`` (default 1: a Ray start-up is tens of seconds on a busy machine).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synthetic import make_corpus

READY = re.compile(r"ready in ([0-9.]+) s")


def whole(root: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """One `eval sweep` process: wall s, the Scorecard, and the Ray start-up lines' figures."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "eval_cli", "sweep", "corpus", "--format", "json", *args],
        cwd=root, env={**os.environ, **(env or {})}, capture_output=True, text=True,
        timeout=1800, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"eval sweep {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    card = json.loads(done.stdout)
    ready = [float(m) for m in READY.findall(done.stderr)]
    return {"wall": wall, "card": card, "ready": ready}


def line(label: str, runs: list[dict[str, Any]], trials: int, ray: bool = False) -> float:
    """Print one configuration's medians; its median wall time."""
    wall = statistics.median(r["wall"] for r in runs)
    sweep = statistics.median(r["card"]["durationMs"] / 1000 for r in runs)
    text = f"  {label:<28} wall {wall:7.2f} s   Sweep {sweep:7.2f} s"
    if ray:
        start = statistics.median(r["ready"][0] for r in runs)
        workers = statistics.median(r["ready"][1] for r in runs)
        trials_s = sweep - start - workers  # the executor connects inside the Sweep
        text += (
            f"   (Ray start-up {start:.2f} s, workers ready {workers:.2f} s, "
            f"Trials {trials_s:.2f} s = {trials_s / trials * 1000:.2f} ms/Trial)"
        )
    else:
        text += f"   ({sweep / trials * 1000:.2f} ms/Trial)"
    print(text, flush=True)
    return wall


def scripted(n: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_corpus(root / "corpus", n)
        print(f"{n} synthetic L2 Cases, scripted binding, whole `eval sweep` processes:")
        for label, args, ray in (
            ("one by one", (), False),
            ("--jobs 2", ("--jobs", "2"), False),
            ("--executor ray (local)", ("--executor", "ray"), True),
        ):
            done = [whole(root, *args) for _ in range(runs)]
            for r in done:
                assert r["card"]["passed"] == n, r["card"]
            line(label, done, n, ray)
        in_process(root, n)


def in_process(root: Path, n: int) -> None:
    """The same Trials with Ray already running: open and Trials apart, twice (the second
    open finds the Corpus's files already on the node)."""
    import logging

    from eval_executor_ray.executor import LOCAL_ENVIRONMENT, RayExecutor

    for name, value in LOCAL_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    import ray

    from eval_core._loading.loader import Loader
    from eval_core._plugins.plugins import load_plugins
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding

    started = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    up = time.perf_counter() - started
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](root / "corpus" / "soul")
    corpus = Loader(plugins, host).load(root / "corpus")
    print(f"In process, Ray up already (ray.init took {up:.2f} s here):")
    try:
        for attempt in (1, 2):
            executor = RayExecutor(None)
            notes: list[str] = []
            card = run_sweep(
                corpus, host, ScriptedBinding(), plugins, executor=executor, note=notes.append
            )
            assert card.passed == n, card.aborted_reason
            workers = float(READY.findall(" ".join(notes))[-1])
            trials_s = card.duration_ms / 1000 - workers
            print(
                f"  open #{attempt}: workers ready {workers:.2f} s; {n} Trials "
                f"{trials_s:.2f} s = {trials_s / n * 1000:.2f} ms/Trial on 2 workers",
                flush=True,
            )
    finally:
        host.close()
        ray.shutdown()


def real(m: int, delay: float, runs: int) -> None:
    from loopback import SlowVendor
    from tests.test_jobs import KEY, project

    vendor = SlowVendor(delay=delay)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = project(Path(tmp), m, vendor.url)
            print(
                f"{m} Cases, a real model over loopback answering after {delay * 1000:.0f} ms "
                "per call, whole `eval sweep` processes:"
            )
            model = ("--model", "slow", "--max-tokens", "100000000")
            env = {"EVAL_JOBS_KEY": KEY}
            base = None
            for label, args, ray in (
                ("one by one", (), False),
                ("--jobs 16", ("--jobs", "16"), False),
                ("--executor ray --jobs 16", ("--executor", "ray", "--jobs", "16"), True),
            ):
                done = [whole(root, *model, *args, env=env) for _ in range(runs)]
                for r in done:
                    assert r["card"]["passed"] == m, r["card"].get("abortedReason")
                wall = line(label, done, m, ray)
                base = base or wall
                print(f"    {base / wall:.1f}x the one-by-one process's wall time", flush=True)
    finally:
        vendor.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=200)
    parser.add_argument("--real", type=int, default=100, help="Cases of the real-model part")
    parser.add_argument("--delay", type=float, default=0.3)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--skip-real", action="store_true")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    scripted(args.n, args.runs)
    if not args.skip_real:
        real(args.real, args.delay, args.runs)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
