"""Load + validate + hash throughput of a synthetic Corpus, and `eval --help` start-up.

    uv run python bench/corpus_load.py [N]      (default N = 10,000)

Target (issue 2): >= 10,000 Cases/s on one core; `eval --help` under 0.3 s. CPU time is
printed beside wall time: on a shared 2-core machine it is the figure that does not move
with the neighbours' load.
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
from synthetic import ROOT, make_corpus


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        corpus = make_corpus(Path(tmp) / "corpus", count)
        plugins = load_plugins()
        host = plugins.hosts["agent-runtime"](corpus / "soul")
        loader = Loader(plugins, host, judge="no-judge")
        loader.load(corpus)  # warm the page cache and the decoders
        walls, cpus = [], []
        for _ in range(5):
            wall, cpu = time.perf_counter(), time.process_time()
            loaded = loader.load(corpus)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    n = len(loaded.cases)
    print(f"cases                {n}")
    print(f"load+validate+hash   {min(walls):.3f} s wall, {min(cpus):.3f} s CPU (best of 5)")
    print(
        f"throughput           {n / min(walls):,.0f} Cases/s wall, {n / min(cpus):,.0f} per CPU-s"
    )
    print(f"median wall          {statistics.median(walls):.3f} s")
    for label, argv in (
        ("eval --help", [str(Path(sys.executable).parent / "eval"), "--help"]),
        ("python -m eval_cli", [sys.executable, "-m", "eval_cli", "--help"]),
    ):
        times = []
        for _ in range(5):
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True, cwd=ROOT)
            times.append(time.perf_counter() - started)
        print(f"{label:<20} {min(times):.3f} s best of 5 (median {statistics.median(times):.3f} s)")


if __name__ == "__main__":
    main()
