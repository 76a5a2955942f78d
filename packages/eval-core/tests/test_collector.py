"""The cyclic collector is paused only by the console script, and resumed once, frozen."""

from __future__ import annotations

import gc
import subprocess
import sys

from eval_core._util import collector


def test_resume_without_pause_leaves_the_collector_as_the_caller_set_it() -> None:
    gc.disable()
    try:
        collector.resume()
        assert not gc.isenabled()  # a library caller's choice is never overridden
    finally:
        gc.enable()


def test_pause_then_resume_freezes_start_up_and_collects_again() -> None:
    frozen = gc.get_freeze_count()
    collector.pause()
    try:
        assert not gc.isenabled()
        made = [[] for _ in range(1000)]
        collector.resume()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + len(made)
        collector.resume()  # once only
        assert gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_sweep_runs_its_trials_with_the_collector_on() -> None:
    probe = (
        "import gc, sys\n"
        "from eval_cli import cli\n"
        "from eval_core._running import runner\n"
        "real = runner.run_trial\n"
        "def run_trial(*args, **kwargs):\n"
        "    assert gc.isenabled() and gc.get_freeze_count() > 10000\n"
        "    return real(*args, **kwargs)\n"
        "runner.run_trial = run_trial\n"
        "sys.argv = ['eval', 'sweep', '--quiet', '--unlocked', '--case',\n"
        "            'finance-refund-is-blocklisted']\n"
        "cli.main()\n"
    )
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
