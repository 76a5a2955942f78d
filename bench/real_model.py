"""The harness against a real model: its share of a Trial, and Trials/s by --jobs and slots.

Serves SmolLM2-135M-Instruct on 127.0.0.1 (``eval_local_model.LocalModel``, the ``realmodel``
dependency group) with 1 and then 2 parallel slots, and sweeps the real-model suite
(``packages/eval-bindings/tests/realmodel_corpus``, ``--repeat R``) through the reference
runtime with ``--jobs 1``, ``2`` and ``4`` against each. For every Sweep it prints:

- Trials/s: Trials over the Sweep's own wall clock (the Scorecard's ``durationMs``; the CLI's
  start-up is not in it);
- the server's seconds: its own ``/metrics`` (``prompt_seconds_total`` +
  ``tokens_predicted_seconds_total``), so the model's time is measured by the server, not by us;
- the harness's share of a Trial, for ``--jobs 1`` (one Trial at a time, so the server works for
  that Trial only): (the Trials' summed wall clock - the server's seconds) / the summed wall
  clock. It counts everything that is not the model computing: the harness, the runtime, HTTP
  on loopback and the server's own request handling, so it is an upper bound on the harness.

Run::

    uv run --group realmodel python bench/real_model.py [--repeat 2]

The CPU is shared: the figures move with the machine's load, which is printed alongside.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from real_model_smoke import SUITE, metrics

ROOT = Path(__file__).resolve().parents[1]


def server_seconds(before: dict[str, float], after: dict[str, float]) -> float:
    keys = ("prompt_seconds_total", "tokens_predicted_seconds_total")
    return sum(after[k] - before.get(k, 0.0) for k in keys)


def sweep(models: Path, env: dict[str, str], jobs: int, repeat: int, log: Path) -> Any:
    command = [
        sys.executable, "-m", "eval_cli", "sweep", str(SUITE),
        "--model", "local-smollm2", "--models", str(models),
        "--max-tokens-per-trial", "20000", "--jobs", str(jobs), "--repeat", str(repeat),
        "--format", "json", "--log", str(log), "--unlocked",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"the Sweep exited {done.returncode}: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="Trials per Case in each Sweep")
    parser.add_argument("--slots", default="1,2", help="the server's parallel slots to try")
    parser.add_argument("--jobs", default="1,2,4", help="--jobs values to try")
    args = parser.parse_args()
    from eval_local_model import LocalModel, missing

    why = missing()
    if why is not None:
        print(f"SKIPPED: {why}")
        return 2
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("EVAL_JUDGE_") and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
    }
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'slots':>5} {'jobs':>4} {'Trials':>6} {'verdicts':>10} {'wall s':>7} {'Trials/s':>8} "
          f"{'server s':>8} {'harness share':>13}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="eval-real-bench-") as work:
        for slots in (int(s) for s in args.slots.split(",")):
            with LocalModel(slots=slots) as model:
                models = model.models_file(Path(work))
                for jobs in (int(j) for j in args.jobs.split(",")):
                    before = metrics(model.base_url)
                    started = time.monotonic()
                    card = sweep(
                        models,
                        {**env, **model.env()},
                        jobs,
                        args.repeat,
                        Path(work) / f"{slots}-{jobs}.jsonl",
                    )
                    elapsed = time.monotonic() - started
                    served = server_seconds(before, metrics(model.base_url))
                    trials = card["trials"]
                    wall = card["durationMs"] / 1000
                    summed = sum(t.get("durationMs", 0.0) for t in trials) / 1000
                    share = f"{(summed - served) / summed:.1%}" if jobs == 1 else "-"
                    verdicts = f"{card['passed']}P/{card['failed']}F/{card['errored']}E"
                    print(f"{slots:>5} {jobs:>4} {len(trials):>6} {verdicts:>10} {wall:>7.1f} "
                          f"{len(trials) / wall:>8.3f} {served:>8.1f} {share:>13}"
                          f"   (CLI wall {elapsed:.1f}s)")  # fmt: skip
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
