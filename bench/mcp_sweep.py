"""MCP L3 Trials per second, including the provider round trip, on the scripted binding.

Prints figures; it is never a timed test. Usage::

    uv run python bench/mcp_sweep.py [N]

Each Trial runs real Runs on a fresh database copy, parks on the MCP approval, is approved as
host state, resumes, and calls the fixture MCP provider over its real stdio transport; the
provider's own count is read back. The provider starts once per Host (reported with the Host
load); each Trial acts in its own provider namespace. Target: under 100 ms per Trial.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from eval_core.corpus import Loader
from eval_core.plugins import load_plugins
from eval_core.scripted import ScriptedBinding
from eval_core.trial import run_trial

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "one approved call": "l3-mcp-consented-shared-account-can-call",
    "two approved calls": "l3-mcp-every-approval-is-its-own-durable-event",
    "refused after approval": "l3-mcp-a-revoked-grant-blocks-an-approved-call",
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    plugins = load_plugins()
    host = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    corpus = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus")
    binding = ScriptedBinding()
    started = time.perf_counter()
    warm = run_trial(corpus.case(CASES["one approved call"]), 0, host, binding, plugins.kinds)
    setup_ms = (time.perf_counter() - started) * 1000
    assert warm.outcome == "passed", warm
    print(f"L3 Host load + MCP provider start + first Trial: {setup_ms:.1f} ms (once per Sweep)")
    for label, case_id in CASES.items():
        case = corpus.case(case_id)
        started = time.perf_counter()
        for number in range(1, n + 1):
            result = run_trial(case, number, host, binding, plugins.kinds)
            assert result.outcome == "passed", result
        elapsed = time.perf_counter() - started
        print(
            f"{label:24} {n} Trials  {n / elapsed:8.1f} Trials/s  "
            f"{elapsed * 1000 / n:6.2f} ms/Trial  ({case_id})"
        )
    host.close()


if __name__ == "__main__":
    main()
