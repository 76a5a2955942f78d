"""L3 Trials per second: a two-step Case and a two-Turn journey, on the scripted binding.

Prints figures; it is never a timed test. Usage::

    uv run python bench/l3_sweep.py [N] [--store postgresql://USER@HOST:PORT/DB | throwaway]
                                    [--surface]

Each Trial mints, claims, executes and settles real Runs on a fresh copy of a migrated template
database and reads them back, exactly as a Sweep does. The Host load (template database, git
copy of the Eval Soul) happens once and is reported apart. Without ``--store`` the store is
SQLite in memory; with it, SQLite's figures are printed first and then the PostgreSQL store's
(each Trial on a database cloned from the template and dropped after), side by side.
``--store throwaway`` starts a cluster of its own on 127.0.0.1 (as the tests do) and removes
it after. Target: an L3 Trial under 50 ms on PostgreSQL. ``--surface`` measures the L3 Cases
of the spec's wider surface instead: Routines run with no model (plain, each crash point, a
retry wait, an approval), an integration reply that was not delivered, the doctor's repair
pass, and a chat Turn whose retry wait outlives a Host restart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from eval_core._loading.loader import Loader
from eval_core._plugins.fixtures import SweepResources
from eval_core._plugins.plugins import load_plugins
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult, run_trial

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "two-step Case": "l3-support-answers-from-a-durable-lookup",
    "two-Turn journey": "l3-journey-rereads-the-history-from-the-database",
}

SURFACE = {
    "Routine, plain": "l3-routine-books-an-invoice-and-captures-the-receipt",
    "Routine, crash at effect_confirmed": "l3-routine-crash-after-effect-confirmed-applies-it-once",
    "Routine, crash at state_succeeded": (
        "l3-routine-crash-after-state-succeeded-resumes-at-the-capture"
    ),
    "Routine, retry wait": "l3-routine-waits-out-a-rate-limit-and-retries",
    "Routine, approval": "l3-routine-waits-for-its-approver-before-the-effect",
    "integration reply not delivered": "l3-a-reply-the-integration-refused-fails-the-run",
    "doctor repair pass": "l3-doctor-repairs-a-routine-that-reads-an-undeclared-input",
    "retry wait across a Host restart": "l3-a-rate-limited-post-waits-and-posts-after-a-restart",
}


def measure(
    cases: dict[str, str],
    n: int,
    setup_label: str,
    store: str | None = None,
    server_cpu: Callable[[], float] | None = None,
) -> None:
    """Warm the Host on the first Case, then time ``n`` Trials of each; print the figures.

    Besides wall time, the CPU each Trial cost this process (its worker thread included) and,
    when ``server_cpu`` can tell, the database server: figures other load does not inflate.
    """
    plugins = load_plugins()
    options = {} if store is None else {"store": store}
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul", **options)
    corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
    binding = ScriptedBinding()
    shared = SweepResources()  # the Sweep's shared fixture resources (the MCP provider)

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
        started, cpu = time.perf_counter(), time.process_time()
        server = server_cpu() if server_cpu is not None else 0.0
        durations = []
        for number in range(1, n + 1):
            result = trial(case_id, number)
            assert result.outcome == "passed", result
            durations.append(result.duration_ms)
        elapsed = time.perf_counter() - started
        cpu = (time.process_time() - cpu) * 1000 / n
        served = ""
        if server_cpu is not None:
            served = f" + server {(server_cpu() - server) * 1000 / n:.1f}"
        print(
            f"{label:{width}}  {n} Trials  {n / elapsed:8.1f} Trials/s  "
            f"{elapsed * 1000 / n:6.2f} ms/Trial  (median {statistics.median(durations):.2f} ms; "
            f"CPU {cpu:.1f}{served} ms)  ({case_id})"
        )
    shared.close()
    host.close()


@contextmanager
def postgres(store: str) -> Iterator[tuple[str, Callable[[], float] | None]]:
    """The store URL (and the server's CPU clock, for a cluster of this script's own, which
    ``throwaway`` starts for the run)."""
    if store != "throwaway":
        yield store, None
        return
    sys.path.insert(0, str(ROOT))
    from tests.postgres_cluster import ThrowawayCluster

    with ThrowawayCluster() as cluster:
        yield cluster.url, cluster.server_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200, help="Trials per Case")
    parser.add_argument("--store", help="a postgresql:// URL, or throwaway")
    parser.add_argument(
        "--surface", action="store_true", help="the Routine, reply, doctor and retry-wait Cases"
    )
    args = parser.parse_args()
    cases = SURFACE if args.surface else CASES
    print("store: sqlite (in memory)")
    measure(cases, args.n, "L3 Host load + first Trial")
    if args.store is not None:
        with postgres(args.store) as (url, server_cpu):
            print(f"store: {url.split('@')[-1] if '@' in url else url} (PostgreSQL)")
            measure(cases, args.n, "L3 Host load + first Trial", url, server_cpu)


if __name__ == "__main__":
    main()
