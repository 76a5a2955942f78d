"""Start-up cost of `eval` commands: what every invocation pays before its own work.

    uv run python bench/startup.py [RUNS]      (default RUNS = 7)

Prints the CPU spent fingerprinting every installed plug-in's code (issue 16: paid by every
command that loads the plug-in set), from the digest cache and cold, then best and median wall
time and the best child CPU time of `eval --help`, `eval plugins`, `eval check` and a one-Case
`eval sweep` on the shipped Corpus. CPU time is printed beside wall time: on a shared 2-core
machine it is the figure that does not move with the neighbours' load. Last, the import time
of each of our modules on a one-Case Sweep (``python -X importtime``; self and cumulative, the
slowest first): a report to read, never a test.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL = str(Path(sys.executable).parent / "eval")
CASE = "finance-refund-is-blocklisted"


def measure(argv: list[str], runs: int) -> tuple[float, float, float]:
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=False, cwd=ROOT)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), statistics.median(walls), min(cpus)


FINGERPRINTS = """
import sys, time
from eval_core._util import code
from eval_core._plugins.plugins import discover
found = discover()
started = time.process_time()
seen = {}
for _, dist, _, plugin in found:
    key = (dist, code.code_roots(plugin))
    if key not in seen:
        seen[key] = code.fingerprint(dist, plugin).digest  # parsed when asked for
print(f"{len(seen)} {time.process_time() - started:.4f}")
"""


def fingerprints(cold: bool) -> str:
    """CPU spent fingerprinting every installed plug-in's code, in a fresh process: from the
    digest cache (warm), or parsing every file (cold: an empty cache directory)."""
    import os

    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if cold:
            env["EVAL_CACHE_DIR"] = cache
        result = subprocess.run(
            [sys.executable, "-c", FINGERPRINTS],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    distributions, seconds = result.stdout.split()
    return f"{float(seconds) * 1000:.1f} ms CPU for {distributions} distributions"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    fingerprints(cold=False)  # fill the cache
    print(f"{'code fingerprints':<22} {fingerprints(cold=False)} (cached)")
    print(f"{'':<22} {fingerprints(cold=True)} (cold: every file parsed)")
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "eval --help": [EVAL, "--help"],
            "eval plugins": [EVAL, "plugins"],
            "eval check": [EVAL, "check"],
            "eval sweep (1 Case)": [
                EVAL, "sweep", "--case", CASE, "-q", "--log", f"{tmp}/log-{{n}}.jsonl",
            ],
        }  # fmt: skip
        for label, argv in commands.items():
            if any("{n}" in a for a in argv):
                counter = iter(range(10**6))
                walls, cpus = [], []
                for _ in range(runs):
                    n = next(counter)
                    best, _, cpu = measure([a.replace("{n}", str(n)) for a in argv], 1)
                    walls.append(best)
                    cpus.append(cpu)
                best, median, cpu = min(walls), statistics.median(walls), min(cpus)
            else:
                best, median, cpu = measure(argv, runs)
            print(
                f"{label:<22} {best:.3f} s best of {runs}, median {median:.3f} s, CPU {cpu:.3f} s"
            )


OURS = ("eval_", "agent_runtime")


def module_imports(top: int = 40) -> None:
    """Each of our modules' import time on a one-Case Sweep, the slowest (cumulative) first,
    and what all imports cost in all (``-X importtime`` adds its own overhead: read them as
    shares, not as wall time)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-X", "importtime", "-m", "eval_cli", "sweep", "--case", CASE,
                "-q", "--log", f"{tmp}/log.jsonl"]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT)
    rows: list[tuple[int, int, str]] = []
    total = 0
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line or "self [us]" in line:
            continue
        own, cumulative, name = (part.strip() for part in line[12:].split("|"))
        if not line[12:].split("|")[2].startswith("  "):  # a top-level import: add it once
            total += int(cumulative)
        if name.startswith(OURS):
            rows.append((int(cumulative), int(own), name))
    print(f"imports on a one-Case sweep: {total / 1000:.1f} ms in all; ours, slowest first:")
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:7.1f} ms cumulative {own / 1000:6.1f} ms self  {name}")
    print(f"  ({len(rows)} of our modules imported)")


if __name__ == "__main__":
    main()
    module_imports()
