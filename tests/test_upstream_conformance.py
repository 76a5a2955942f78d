"""The original's own Cases, unchanged, with the original's Eval Soul: those that pass stay passing.

The reference set (``../shared/reference/upstream-corpus`` beside the checkout, as its
``runner.py`` assumes) is not part of the repository; the ids of the Cases that pass with it
are (``upstream_conformance_passing.txt``). The runner sweeps each Case alone, three Souls
over; this test sweeps every expected-passing Case in one Corpus per suite (two processes, not
a hundred), so it stays cheap. A Case that stops passing fails the test with its failing
Expectations; a Case that starts passing is left for a person to add to the list.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(
    os.environ.get("UPSTREAM_CORPUS", ROOT.parent / "shared" / "reference" / "upstream-corpus")
)
ORIGINAL = REFERENCE / "apps" / "eval"
PASSING = Path(__file__).with_name("upstream_conformance_passing.txt")


def expected() -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in PASSING.read_text().splitlines())
    return [line for line in lines if line]


def _corpus(tmp: Path, entries: list[str]) -> dict[str, Path]:
    """One Corpus of the expected Cases, unchanged, with the original's Soul and our lock; an
    entry ``red-team/<id>`` is a red-team Case (ids are unique per suite only)."""
    shutil.copytree(ORIGINAL / "soul", tmp / "soul")
    shutil.copy(ROOT / "corpus" / "eval.lock", tmp / "eval.lock")
    (tmp / "red-team").mkdir()
    suites: dict[str, Path] = {}
    for entry in entries:
        suite, _, case_id = entry.rpartition("/")
        found = ORIGINAL / "corpus" / suite / f"{case_id}.json"
        if not found.is_file():
            pytest.fail(f"{entry}: listed as passing, but the reference set has no such Case")
        target = tmp / suite if suite else tmp
        shutil.copy(found, target / found.name)
        suites[suite or "capability"] = target
    return suites


def _sweep(directory: Path, log: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "eval_cli", "sweep", str(directory), "--format", "json"]
    command += ["--quiet", "--unlocked", "--log", str(log)]
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=240, cwd=ROOT
    )
    try:
        card: dict[str, Any] = json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"the sweep of {directory.name} printed no Scorecard: {done.stderr[-2000:]}")
    return card


def _verdicts(card: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each Case's outcome and what failed (its own Trial, not a derived variant's)."""
    out: dict[str, tuple[str, str]] = {}
    for trial in card.get("trials", []):
        failing = [
            f"{e.get('kind')}: {e.get('detail')}"
            for e in trial.get("expectations", [])
            if not e.get("passed")
        ]
        if trial.get("error"):
            failing.append(f"error: {trial['error']}")
        out[trial.get("caseId", "?")] = (trial.get("outcome", "?"), " | ".join(failing))
    return out


@pytest.mark.skipif(not ORIGINAL.is_dir(), reason=f"no reference set at {REFERENCE}")
def test_the_original_cases_that_passed_still_pass(tmp_path: Path) -> None:
    entries = expected()
    assert len(entries) == len(set(entries)), "a Case is listed twice"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seen: dict[str, tuple[str, str]] = {}
    for suite, directory in sorted(_corpus(corpus, entries).items()):
        prefix = "" if suite == "capability" else f"{suite}/"
        found = _verdicts(_sweep(directory, tmp_path / f"{suite}.jsonl"))
        seen |= {prefix + case_id: verdict for case_id, verdict in found.items()}
    stopped = {e: seen.get(e, ("not run", "")) for e in entries}
    stopped = {e: verdict for e, verdict in stopped.items() if verdict[0] != "passed"}
    assert not stopped, "\n".join(f"{c}: {o} {why}"[:600] for c, (o, why) in stopped.items())
