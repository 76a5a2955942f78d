"""L2 Sweep throughput on the scripted binding, and `eval sweep` wall time end to end.

    uv run python bench/l2_sweep.py [N]      (default N = 2,000 in-process; 10,000 end to end)

Each synthetic Case: three messages, one Tool call and its result, a final answer, four
Expectations, every guard of the Eval Soul on. Each Trial is appended to a real trial log as it
finishes, its transcript (the whole Evidence) beside it, as `eval sweep` writes them.
Targets (issue 3): >= 2,000 L2 Trials/s on one core; 10,000 Cases in < 10 s end to end;
`eval sweep` of a one-Case Corpus in < 0.5 s wall.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import load_plugins
from eval_core._recording import transcript
from logged import logged_sweep
from synthetic import ROOT, make_corpus


def in_process(tmp: Path, count: int) -> None:
    corpus_dir = make_corpus(tmp / "inproc", count)
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
    corpus = Loader(plugins, host, judge="no-judge").load(corpus_dir)
    walls, cpus = [], []
    for attempt in range(3):
        path = tmp / f"trials-{attempt}.jsonl"
        wall, cpu, card = logged_sweep(path, corpus, host, plugins)
        walls.append(wall)
        cpus.append(cpu)
    pack = transcript.pack_path(path).stat().st_size
    assert card.passed == count, f"{card.failed} failed, {card.errored} errored"
    best_wall, best_cpu = min(walls), min(cpus)
    print(f"Trials               {count} (all PASS)")
    print(f"in-process Sweep     {best_wall:.3f} s wall, {best_cpu:.3f} s CPU (best of 3)")
    print(
        f"throughput           {count / best_wall:,.0f} Trials/s wall, "
        f"{count / best_cpu:,.0f} per CPU-s"
    )
    print(f"harness cost         {best_cpu / count * 1000:.3f} ms CPU per Trial")
    print(f"transcripts          {pack / count / 1000:.1f} kB per Trial beside the log")


def end_to_end(tmp: Path, count: int) -> None:
    eval_bin = str(Path(sys.executable).parent / "eval")
    for label, size in ((f"eval sweep ({count} Cases)", count), ("eval sweep (1 Case)", 1)):
        corpus_dir = make_corpus(tmp / f"e2e{size}", size)
        times = []
        for _ in range(3 if size > 1 else 5):
            started = time.perf_counter()
            done = subprocess.run(
                [eval_bin, "sweep", str(corpus_dir), "--quiet"],
                capture_output=True,
                cwd=ROOT,
                check=False,
            )
            times.append(time.perf_counter() - started)
            assert done.returncode == 0, done.stderr.decode()[-2000:]
        print(f"{label:<24} {min(times):.3f} s wall best (median {statistics.median(times):.3f} s)")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000
    with tempfile.TemporaryDirectory() as tmp:
        in_process(Path(tmp), count)
        end_to_end(Path(tmp), 10_000)


if __name__ == "__main__":
    main()
