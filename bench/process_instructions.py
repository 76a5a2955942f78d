"""Instructions of a whole `eval sweep` process, counted by callgrind (issue 49): start-up,
loading, the Trials and the Scorecard, the figure bench/peers.py times, in a unit the load of
a shared machine does not move.

    uv run python bench/process_instructions.py [--sizes 1,100] [--keep DIR]

For each size N (default 1 and 100), bench/synthetic.py's Corpus of N Cases is swept by the
console script in a process of its own under ``valgrind --tool=callgrind`` (the interpreter's
start included, nothing paused), as ``eval sweep CORPUS --quiet --log LOG``:

- warm: its cache directory (``EVAL_CACHE_DIR``) filled by one Sweep of the same Corpus first;
- cold: an empty cache directory (bytecode stays compiled, as after any first run).

Printed: the instructions of each, and their difference per Case (the Trial's share). With
``--keep DIR`` the callgrind files stay in DIR for ``callgrind_annotate``. The floor beside
them is an interpreter that imports msgspec, pluggy and typer and does nothing. A report, never
a test; it needs valgrind on PATH. Each count is one process: run to run it moves by well
under 0.5 %.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import ROOT, make_corpus
from trial_instructions import callgrind as counted
from trial_instructions import environment

EVAL = str(Path(sys.executable).parent / "eval")
FLOOR = "import msgspec, pluggy, typer"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,100", help="Corpus sizes, comma-separated")
    parser.add_argument("--keep", type=Path, help="keep the callgrind files in this folder")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        keep: Path = args.keep or where
        keep.mkdir(parents=True, exist_ok=True)
        floor = counted([sys.executable, "-c", FLOOR], keep / "callgrind.floor.out", {})
        print(f"floor ({FLOOR}): {floor:>15,}")
        totals: dict[tuple[str, int], int] = {}
        for n in sizes:
            corpus = make_corpus(where / f"c{n}", n)
            warm = environment(where / f"warm{n}")

            def sweep(name: str, corpus: Path = corpus) -> list[str]:
                log = where / f"{name}.jsonl"
                return [sys.executable, EVAL, "sweep", str(corpus), "--quiet", "--log", str(log)]

            subprocess.run(sweep(f"fill{n}"), capture_output=True, check=True, cwd=ROOT, env=warm)
            totals["warm", n] = counted(sweep(f"warm{n}"), keep / f"callgrind.warm.{n}.out", warm)
            cold = environment(where / f"cold{n}")  # empty: created by the Sweep itself
            totals["cold", n] = counted(sweep(f"cold{n}"), keep / f"callgrind.cold.{n}.out", cold)
            print(
                f"{n:>6} Cases: warm {totals['warm', n]:>15,}   cold {totals['cold', n]:>15,}"
                f"   (cold - warm {totals['cold', n] - totals['warm', n]:>13,})"
            )
        small, large = min(sizes), max(sizes)
        if large > small:
            for state in ("warm", "cold"):
                per = (totals[state, large] - totals[state, small]) / (large - small)
                print(f"per Case, {state}: {per:,.0f} instructions")


if __name__ == "__main__":
    main()
