"""Every figure of the scale issue (17), whole processes, on this machine.

    uv run python bench/scale.py [--quick]

Prints: `eval sweep` of 100, 1,000 and 10,000 synthetic Cases (target at 1,000: under 0.3 s
wall) and the 10,000-Case Sweep's peak RSS (target under 150 MiB); the shipped Corpus swept
(best and median of 5, target under 1 s, and its five slowest Cases); load+validate+hash
Cases/s (target 20,000): every Case checked, a Corpus unchanged since its last load, and one
with a Case file edited before each load;
`eval --help` (target 0.15 s) and a one-Case Sweep (target 0.3 s);
100 Cases against a loopback OpenAI-wire vendor answering after 300 ms, one at a time (once: 30 s)
vs `--jobs 16` (target at least 12x) vs `--executor ray --jobs 16` when that plug-in is
installed (`--jobs 16`: best and median of 3).
`--quick` skips the 10,000-Case Sweep and the sequential real-model Sweep (about 35 s).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import load_plugins
from loopback import SlowVendor
from synthetic import ROOT, make_corpus

EVAL = str(Path(sys.executable).parent / "eval")
KEY = "sk-bench-scale-0123456789abcdef"
# As on a user's machine: Python caches the bytecode it compiles (the first run pays for it).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in KiB (of this one child) and stdout of one whole process."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [EVAL, *args], cwd=cwd, env=env or ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode in (0, 1), f"{args}: exit {child.returncode}"  # 1: not cleared
    return wall, usage.ru_maxrss, out.decode()


def best_median(
    runs: int, *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> tuple[float, float, str]:
    walls, out = [], ""
    for _ in range(runs):
        wall, _, out = timed(*args, cwd=cwd, env=env)
        walls.append(wall)
    return min(walls), statistics.median(walls), out


def synthetic(tmp: Path, quick: bool) -> None:
    for count in (100, 1_000) if quick else (100, 1_000, 10_000):
        corpus = make_corpus(tmp / f"synthetic-{count}", count)
        runs = 1 if count == 10_000 else 5
        walls, peak = [], 0
        for _ in range(runs):
            wall, rss, _ = timed("sweep", str(corpus), "--quiet")
            walls.append(wall)
            peak = max(peak, rss)
        per_case = min(walls) / count * 1000
        line = f"sweep {count:>6,} synthetic  {min(walls):7.3f} s best"
        line += f", {statistics.median(walls):.3f} s median of {runs} ({per_case:.3f} ms/Case)"
        line += {100: "  target <= 0.18 s", 1_000: "  target <= 0.29 s"}.get(count, "")
        if count == 10_000:
            line += f", peak RSS {peak / 1024:.0f} MiB (target < 150 MiB)"
        print(line)


def shipped() -> None:
    best, median, out = best_median(5, "sweep", "--quiet", "--format", "json")
    card = json.loads(out)
    slowest = sorted(card["trials"], key=lambda t: -t["durationMs"])[:5]
    print(f"shipped Corpus       {best:7.3f} s best, {median:.3f} s median of 5 "
          f"({len(card['trials'])} Trials)  target <= 1.0 s")  # fmt: skip
    for trial in slowest:
        print(f"  {trial['durationMs']:8.1f} ms  {trial['caseId']}")
    best, median, _ = best_median(5, "sweep", "--quiet", "--executor", "fork", "--jobs", "2")
    print(f"  --executor fork -j2 {best:7.3f} s best, {median:.3f} s median of 5 (forked workers)")
    best, median, _ = best_median(5, "sweep", "--quiet", "--suite", "all")
    print(f"--suite all          {best:7.3f} s best, {median:.3f} s median of 5  target <= 1.5 s")
    one = card["trials"][0]["caseId"]
    best, median, _ = best_median(5, "sweep", "--quiet", "--case", one)
    print(f"one-Case sweep       {best:7.3f} s best, {median:.3f} s median of 5  target <= 0.20 s")
    best, median, _ = best_median(5, "--help")
    print(f"eval --help          {best:7.3f} s best, {median:.3f} s median of 5  target <= 0.10 s")
    walls = []
    for _ in range(5):  # cold: a fresh cache directory (no checked Corpus, manifest or digest;
        # the lock's pins spare parsing the code they pin)
        with tempfile.TemporaryDirectory() as cache:
            walls.append(timed("check", env={**ENV, "EVAL_CACHE_DIR": cache})[0])
    print(f"eval check (cold)    {min(walls):7.3f} s best, {statistics.median(walls):.3f} s "
          "median of 5  target <= 0.25 s")  # fmt: skip
    walls = []
    for _ in range(5):  # a Corpus never checked here: a fresh copy (code digests, manifests kept)
        with tempfile.TemporaryDirectory() as copy:
            shutil.copytree(ROOT / "corpus", Path(copy) / "corpus")
            walls.append(timed("check", "corpus", cwd=Path(copy))[0])
    print(f"eval check (new)     {min(walls):7.3f} s best, {statistics.median(walls):.3f} s "
          "median of 5 (a copy: its Cases checked, the code's digests kept)")  # fmt: skip
    best, median, _ = best_median(5, "check")
    print(f"eval check (warm)    {best:7.3f} s best, {median:.3f} s median of 5")


def load_rate(tmp: Path) -> None:
    """In-process, best of 5: checking every Case (the checked-Corpus cache off), the same
    Corpus again with the cache on (what a second command on an unchanged Corpus pays), and
    with one Case file edited before each load (only that file is checked again)."""
    corpus = make_corpus(tmp / "load", 10_000)
    plugins = load_plugins()
    loader = Loader(plugins, plugins.hosts["agent-runtime"](corpus / "soul"), judge="no-judge")
    edited = sorted(corpus.glob("*.json"))[0]
    versions = [edited.read_bytes()]
    versions.append(json.dumps({**json.loads(versions[0]), "trials": 2}).encode())
    previous = os.environ.get("EVAL_CACHE")
    try:
        for label, setting, edit in (
            ("checked", "off", False),
            ("unchanged", "on", False),
            ("one Case edited", "on", True),
        ):
            os.environ["EVAL_CACHE"] = setting
            loader.load(corpus)  # the page cache and the decoders warm (and the cache written)
            walls, cpus = [], []
            for run in range(5):
                if edit:
                    edited.write_bytes(versions[(run + 1) % 2])
                wall, cpu = time.perf_counter(), time.process_time()
                loaded = loader.load(corpus)
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            n = len(loaded.cases)
            print(f"load+validate+hash   {n / min(walls):7,.0f} Cases/s wall, "
                  f"{n / min(cpus):,.0f} per CPU-s ({label}: best of 5, {n:,} Cases)")  # fmt: skip
    finally:
        if previous is None:
            os.environ.pop("EVAL_CACHE", None)
        else:
            os.environ["EVAL_CACHE"] = previous


def real_model(tmp: Path, quick: bool) -> None:
    vendor = SlowVendor(delay=0.3)
    root = tmp / "vendor"
    make_corpus(root / "corpus", 100, tool_call=False)
    (root / "models.toml").write_text(
        f'[models.slow]\nwire = "openai"\nmodel = "slow-2026-01-01"\nbase_url = "{vendor.url}"\n'
        'credential = "env://EVAL_SCALE_KEY"\ndated = true\n'
        "price_input_per_mtok = 1.0\nprice_output_per_mtok = 1.0\ntimeout_s = 30\n"
    )
    env = {**ENV, "EVAL_SCALE_KEY": KEY}
    base = ("sweep", "corpus", "--model", "slow", "--quiet", "--max-tokens", "100000000")
    ways = [("--jobs 16", ("--jobs", "16"))]
    if not quick:
        ways.insert(0, ("one at a time", ()))
    if find_spec("eval_executor_ray") is not None:
        ways.append(("--executor ray", ("--executor", "ray", "--jobs", "16")))
    walls: dict[str, tuple[float, float]] = {}
    try:
        for label, extra in ways:
            runs = 3 if label == "--jobs 16" else 1  # the target's figure: best and median of 3
            best, median, _ = best_median(runs, *base, *extra, cwd=root, env=env)
            walls[label] = best, median
    finally:
        vendor.close()
    sequential = walls.get("one at a time", (100 * 0.3, 0.0))[0]
    for label, (best, median) in walls.items():
        line = f"100 Cases @300 ms     {label:<14} {best:7.2f} s"
        if label == "--jobs 16":
            line += f" best, {median:.2f} s median of 3"
            line += f" ({sequential / best:.1f}x, {sequential / median:.1f}x one at a time)"
        elif label != "one at a time":
            line += f"  ({sequential / best:.1f}x one at a time)"
        print(line)
    if quick:
        print("  (one at a time not run: 100 calls x 0.3 s is at least 30 s)")


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        synthetic(tmp, quick)
        shipped()
        load_rate(tmp)
        real_model(tmp, quick)


if __name__ == "__main__":
    main()
