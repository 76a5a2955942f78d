"""Saved Sweeps read back in bounded memory (issue 45, class 7): a saved Scorecard of more
Trials than a Sweep may plan is refused in one line before any Trial is decoded, and what is
decoded goes straight into the Scorecard. Before, ``eval compare`` of a 200,000-Trial Scorecard
(65 MB) peaked at 1.3 GB (a million Trials: MemoryError); the depth scan alone kept a piece of
memory per string of the file."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from eval_core._util.input_files import NotReadable, count_lines, read_head
from release_fixtures import scorecard, trial

TRIALS = 200_000


def saved_sweep(path: Path, trials: int) -> int:
    """A saved Scorecard of ``trials`` Trials over 1,000 Cases, written a Trial at a time."""
    card = scorecard([trial("case-0", "passed")])
    one = msgspec.json.encode(card.trials[0])
    head, tail = msgspec.json.encode(card).split(one)
    with path.open("wb") as out:
        out.write(head)
        for i in range(trials):
            line = one.replace(b'"case-0"', b'"case-%d"' % (i % 1000))
            out.write(
                (b"," if i else b"") + line.replace(b'"trial":1', b'"trial":%d' % (i // 1000 + 1))
            )
        out.write(tail)
    return path.stat().st_size


def _high_water(pid: int) -> int:
    """The process's own peak resident memory (``VmHWM``, bytes), 0 once it has none."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    line = next((x for x in status.splitlines() if x.startswith("VmHWM:")), "VmHWM: 0 kB")
    return int(line.split()[1]) * 1024


def run(tmp: Path, *args: str | Path) -> tuple[int, str, str, int, float]:
    """``eval`` in a child: its exit code, stdout, stderr, peak RSS (bytes) and seconds.

    The peak is the child's own ``VmHWM``, read while it runs: ``wait4``'s ``ru_maxrss`` also
    counts the memory the child had before ``exec``, a copy of this (large) test process."""
    started = time.monotonic()
    peak = 0
    with (tmp / "out").open("wb") as out, (tmp / "err").open("wb") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "eval_cli", *map(str, args)], stdout=out, stderr=err
        )
        while child.poll() is None:
            peak = max(peak, _high_water(child.pid))
            time.sleep(0.01)
    seconds = time.monotonic() - started
    return (
        child.returncode,
        (tmp / "out").read_text(),
        (tmp / "err").read_text(),
        peak,
        seconds,
    )


def test_a_saved_sweep_of_more_trials_than_planned_is_refused_in_one_line(tmp_path: Path) -> None:
    big, small = tmp_path / "big.json", tmp_path / "small.json"
    size = saved_sweep(big, TRIALS)
    saved_sweep(small, 2000)
    code, out, err, peak, seconds = run(tmp_path, "compare", big, small)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{big}: $.trials: 200,000 Trials, over the 100,000 a Sweep may plan" in err
    assert peak < size + (150 << 20), f"peak RSS {peak:,} for a {size:,}-byte Scorecard"
    assert seconds < 30


def test_a_large_saved_sweep_is_compared_without_decoding_it_twice(tmp_path: Path) -> None:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    size = saved_sweep(before, 50_000)
    saved_sweep(after, 50_000)
    code, out, err, peak, _ = run(tmp_path, "compare", before, after)
    assert code == 0, err
    assert "1000 passed before, 1000 passed after" in out
    assert peak < 4 * size + (100 << 20), f"peak RSS {peak:,} for two {size:,}-byte Scorecards"


def test_a_file_is_counted_and_its_head_read_without_reading_it_whole(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"head\n" + b"x\n" * 1000 + b"last")
    assert count_lines(log, 1 << 20, 10_000) == 1002
    assert count_lines(log, 1 << 20, 10) > 10
    assert read_head(log, 4) == b"head"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for read in (lambda: read_head(fifo, 4), lambda: count_lines(fifo, 10, 10)):
        try:
            read()
        except NotReadable as exc:
            assert "named pipe" in str(exc)
        else:
            raise AssertionError("a named pipe was read")
