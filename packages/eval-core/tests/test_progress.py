"""Progress counts Trials as they finish, with the rate and the time left; stderr only."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator

from eval_core._running.progress import Progress, duration
from eval_core._running.trial import Outcome, TrialResult


def result(case_id: str, outcome: Outcome = "passed") -> TrialResult:
    return TrialResult(case_id=case_id, trial=1, outcome=outcome, duration_ms=20.0)


def ticking(*times: float) -> Iterator[float]:
    yield from times


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_count_trials_in_the_order_they_finish() -> None:
    stream = io.StringIO()
    clock = ticking(0.0, 10.0, 12.0, 13.0, 14.0)  # made, begun, then one tick per Trial
    progress = Progress(stream, clock=lambda: next(clock))
    progress.begin(5, done=2)  # resumed: two Trials of five were already done
    for case_id in ("e", "c", "d"):  # finishing out of the planned order
        progress.trial(result(case_id, "failed" if case_id == "c" else "passed"))
    assert stream.getvalue().splitlines() == [
        "[3/5] e#1 PASS 0.02s  0.5 Trials/s  ETA 4s",
        "[4/5] c#1 FAIL 0.02s  0.7 Trials/s  ETA 2s",
        "[5/5] d#1 PASS 0.02s  0.8 Trials/s  ETA 0s",
    ]


def test_each_leg_counts_its_own_trials_and_quiet_prints_none() -> None:
    stream = io.StringIO()
    progress = Progress(stream)
    for total in (2, 1):
        progress.begin(total)
        for _ in range(total):
            progress.trial(result("a"))
    assert [line.split()[0] for line in stream.getvalue().splitlines()] == [
        "[1/2]",
        "[2/2]",
        "[1/1]",
    ]
    silent = io.StringIO()
    quiet = Progress(silent, quiet=True)
    quiet.begin(1)
    quiet.trial(result("a"))
    quiet.warn("repaired the log")
    assert silent.getvalue() == "repaired the log\n"


def test_a_terminal_gets_a_rich_bar_with_done_of_total_and_rate() -> None:
    stream = Terminal()
    progress = Progress(stream)
    progress.begin(3)
    progress.trial(result("a"))
    progress.trial(result("[bold]b", "failed"))  # a Case id is never read as markup
    progress.trial(result("[red]c"))
    progress.close()
    shown = stream.getvalue()
    assert "3/3" in shown and "Trials/s" in shown and "ETA" in shown
    assert "[2/3] [bold]b#1 FAIL" in shown  # a Trial that did not pass, printed above the bar
    assert "[red]c#1 PASS" in shown  # the last Trial done, beside the bar


def test_rich_is_imported_only_for_a_terminal() -> None:
    code = (
        "import io, sys\n"
        "from eval_core._running.progress import Progress\n"
        "from eval_core._running.trial import TrialResult\n"
        "p = Progress(io.StringIO())\n"
        "p.begin(1)\n"
        "p.trial(TrialResult(case_id='a', trial=1, outcome='passed'))\n"
        "p.close()\n"
        "print(sorted(m for m in sys.modules if m == 'rich' or m.startswith('rich.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_durations_read_as_a_person_says_them() -> None:
    assert [duration(s) for s in (0, 4.4, 59.6, 185, 7440)] == ["0s", "4s", "1m00s", "3m05s",
                                                                "2h04m"]  # fmt: skip
