"""Forked workers (``--executor fork``, issue 32): the same Scorecard, in the planned order,
as the one-by-one loop, and a trial log it began is resumed by it to the same Scorecard."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import synthetic_corpus

ROOT = Path(__file__).resolve().parent.parent
EVAL = str(Path(sys.executable).parent / "eval")


def _sweep(cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [EVAL, "sweep", "corpus", "--format", "json", "-q", "--unlocked", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    card: dict[str, Any] = json.loads(done.stdout)
    return card


def _verdicts(card: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["caseId"], t["outcome"]) for t in card["trials"]]


def test_forked_workers_give_the_same_scorecard_and_resume_their_log(tmp_path: Path) -> None:
    synthetic_corpus(tmp_path / "corpus", 12)
    alone = _sweep(tmp_path, "--log", str(tmp_path / "alone.jsonl"))
    log = tmp_path / "forked.jsonl"
    forked = _sweep(tmp_path, "--executor", "fork", "--jobs", "2", "--log", str(log))
    assert _verdicts(forked) == _verdicts(alone)
    assert len(forked["trials"]) == 12 and forked["passed"] == 12
    assert forked["corpusHash"] == alone["corpusHash"]
    lines = log.read_bytes().splitlines(keepends=True)
    assert len(lines) == 13  # the Sweep's header, then one line per Trial
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:6]))  # as a Sweep interrupted after five Trials left it
    resumed = _sweep(tmp_path, "--executor", "fork", "--jobs", "2", "--resume", str(cut))
    assert _verdicts(resumed) == _verdicts(alone)
    assert cut.read_bytes().count(b"\n") == 13  # the resumed Trials were logged after them


def test_fork_takes_no_address(tmp_path: Path) -> None:
    synthetic_corpus(tmp_path / "corpus", 1)
    done = subprocess.run(
        [EVAL, "sweep", "corpus", "-q", "--unlocked", "--executor", "fork", "--address", "x:1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "executor refused: --executor fork runs on this machine: it takes no --address"
    ]


L3 = [
    "l3-support-answers-from-a-durable-lookup",
    "l3-journey-rereads-the-history-from-the-database",
]


def _forked_l3(cwd: Path, tmpdir: Path) -> subprocess.Popen[str]:
    cases = [arg for case in L3 for arg in ("--case", case)]
    return subprocess.Popen(
        [EVAL, "sweep", str(ROOT / "corpus"), "--executor", "fork", "--jobs", "2", *cases],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmpdir), "EVAL_CACHE_DIR": str(cwd / "cache")},
    )


def test_forked_workers_leave_no_temporary_directory(tmp_path: Path) -> None:
    """Issue 45, class 6: an L3 tier a child makes lands in its own scratch directory, which
    the parent removes once the child is gone: after a Sweep, and after an interrupted one."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    done = _forked_l3(tmp_path, tmpdir)
    _, err = done.communicate(timeout=300)
    assert done.returncode == 0, err[-2000:]
    assert list(tmpdir.iterdir()) == []
    started = _forked_l3(tmp_path, tmpdir)
    assert started.stderr is not None
    for line in started.stderr:  # interrupted once the children exist
        if line.startswith("trial log"):
            break
    started.send_signal(signal.SIGINT)
    started.communicate(timeout=300)
    assert started.returncode in (1, 130)
    assert list(tmpdir.iterdir()) == []
