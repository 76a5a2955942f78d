"""L3 Trials per second: a two-step Case and a two-Turn journey, on the scripted binding.

Prints figures; it is never a timed test. Usage::

    uv run python bench/l3_sweep.py [N]

Each Trial mints, claims, executes and settles real Runs on a fresh copy of the memoised,
migrated SQLite database and reads them back, exactly as a Sweep does. The Host load (template
database, git copy of the Eval Soul) happens once and is reported apart.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from eval_core.corpus import Loader
from eval_core.fixtures import Shared
from eval_core.plugins import load_plugins
from eval_core.scripted import ScriptedBinding
from eval_core.trial import TrialResult, run_trial

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "two-step Case": "l3-support-answers-from-a-durable-lookup",
    "two-Turn journey": "l3-journey-rereads-the-history-from-the-database",
}


def measure(cases: dict[str, str], n: int, setup_label: str) -> None:
    """Warm the Host on the first Case, then time ``n`` Trials of each; print the figures."""
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
    binding = ScriptedBinding()
    shared = Shared()  # the Sweep's shared fixture resources (the MCP provider)

    def trial(case_id: str, number: int) -> TrialResult:
        case = corpus.case(case_id)
        return run_trial(case, number, host, binding, plugins.kinds, plugins.fixtures, shared)

    started = time.perf_counter()
    warm = trial(next(iter(cases.values())), 0)
    setup_ms = (time.perf_counter() - started) * 1000
    assert warm.outcome == "passed", warm
    print(f"{setup_label}: {setup_ms:.1f} ms (once per Sweep)")
    width = max(map(len, cases))
    for label, case_id in cases.items():
        started = time.perf_counter()
        for number in range(1, n + 1):
            result = trial(case_id, number)
            assert result.outcome == "passed", result
        elapsed = time.perf_counter() - started
        print(
            f"{label:{width}}  {n} Trials  {n / elapsed:8.1f} Trials/s  "
            f"{elapsed * 1000 / n:6.2f} ms/Trial  ({case_id})"
        )
    shared.close()
    host.close()


def main() -> None:
    measure(CASES, int(sys.argv[1]) if len(sys.argv) > 1 else 200, "L3 Host load + first Trial")


if __name__ == "__main__":
    main()
