"""Instructions per synthetic L2 Trial, counted by callgrind (issue 49): a figure the load of a
shared machine does not move, where CPU and wall times do.

    uv run python bench/trial_instructions.py [SMALL] [LARGE] [--keep DIR]

Two in-process Sweeps of synthetic Corpora (bench/synthetic.py: one Tool call, an answer, four
Expectations, every guard on, the trial log and its transcripts written), SMALL and LARGE Cases
(default 50 and 250), each run under ``valgrind --tool=callgrind`` as the console script runs
it (collector paused while it starts), its caches warmed by one Sweep first, in a cache
directory of its own; start-up and the Scorecard's fixed work cancel in the difference, and
instructions per Trial are (LARGE total - SMALL total) / (LARGE - SMALL). With ``--keep DIR``
the callgrind files stay in DIR for ``callgrind_annotate``. A report, never a test; it needs
valgrind on PATH.

Callgrind counts instructions, not cycles: valgrind offers no SHA extensions, so OpenSSL's
SHA-256 costs about 30 instructions a byte here and a few cycles a byte on the machine; hashing
weighs more in this figure than in CPU time.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import ROOT, make_corpus

EVAL = str(Path(sys.executable).parent / "eval")
TOTALS = re.compile(rb"^(?:summary|totals):\s+([0-9]+)", re.MULTILINE)


def inner(corpus: str, log: str) -> None:
    """One in-process Sweep of ``corpus``, as the console script runs it (under callgrind)."""
    from eval_cli.cli import invoke
    from eval_core.commands import pause_collector

    pause_collector()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = invoke(["sweep", corpus, "--quiet", "--log", log])
    if code != 0:
        raise SystemExit(f"the in-process Sweep of {corpus} exited {code}")


def environment(cache: Path) -> dict[str, str]:
    """Bytecode written, a cache of this run's own (no neighbour's entries evicting ours) and
    one hash seed: the same Sweep counts the same instructions run after run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(EVAL_CACHE_DIR=str(cache), PYTHONHASHSEED="0")
    return env


def callgrind(argv: list[str], out: Path, env: dict[str, str]) -> int:
    """Instructions callgrind counts for the whole process ``argv`` (its file at ``out``)."""
    wrapped = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv]
    done = subprocess.run(
        wrapped, capture_output=True, check=False, cwd=ROOT, env={**env, "PYTHONMALLOC": "malloc"}
    )
    if done.returncode != 0:
        raise SystemExit(f"callgrind of {argv}: exit {done.returncode}: {done.stderr[-600:]!r}")
    found = TOTALS.search(out.read_bytes())
    if found is None:
        raise SystemExit(f"{out}: no totals line")
    return int(found.group(1))


def counted(corpus: Path, out: Path, log: Path, env: dict[str, str]) -> int:
    """Instructions callgrind counts for one in-process Sweep of ``corpus``."""
    return callgrind([sys.executable, __file__, "--inner", str(corpus), str(log)], out, env)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--inner"]:
        inner(args[1], args[2])
        return
    keep: Path | None = None
    if "--keep" in args:
        at = args.index("--keep")
        keep = Path(args[at + 1])
        keep.mkdir(parents=True, exist_ok=True)
        del args[at : at + 2]
    small = int(args[0]) if args else 50
    large = int(args[1]) if len(args) > 1 else 250
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        totals: dict[int, int] = {}
        for n in (small, large):
            corpus = make_corpus(where / f"c{n}", n)
            env = environment(where / "cache")
            warm = [EVAL, "sweep", str(corpus), "--quiet", "--log", str(where / f"warm{n}.jsonl")]
            subprocess.run(warm, capture_output=True, check=True, cwd=ROOT, env=env)  # caches
            out = (keep or where) / f"callgrind.{n}.out"
            totals[n] = counted(corpus, out, where / f"log{n}.jsonl", env)
            print(f"  {n:>5} Cases: {totals[n]:>15,} instructions")
    per_trial = (totals[large] - totals[small]) / (large - small)
    print(f"per Trial: {per_trial:,.0f} instructions ({per_trial / 1e6:.3f} M)")


if __name__ == "__main__":
    main()
