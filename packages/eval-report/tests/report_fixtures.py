"""A two-model Matrix against real OpenAI-wire servers on 127.0.0.1, built once per session.

``good`` answers every Case as its script says; ``bad`` answers one Case badly, so the models
disagree on it and it regresses against ``bad``'s Baseline (a Sweep saved while ``bad`` still
answered well). Everything runs through the real ``eval`` command line, as a release manager
would: sweeps with their trial logs and saved Scorecards, then ``eval report``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT, ScriptedVendor, judgeless_env, loopback_models, run_eval

CASES = [
    "finance-refund-is-blocklisted",
    "triage-discovers-repository-before-search",
    "support-reads-two-tickets-in-one-batch",
]
WRONG = CASES[2]
KEY = "sk-report-test-0123456789"


def eval_cli(root: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return run_eval(*args, cwd=root, env=judgeless_env(EVAL_REPORT_KEY=KEY))


def write_models(root: Path, **urls: str) -> None:
    loopback_models(root / "models.toml", "EVAL_REPORT_KEY", **urls)


@dataclass(frozen=True)
class Matrix:
    root: Path
    logs: list[Path]  # good's, then bad's
    cards: list[Path]
    baseline: Path
    report: Path
    made: subprocess.CompletedProcess[str]


def build_matrix(root: Path) -> Matrix:
    cases = [json.loads((ROOT / "corpus" / f"{c}.json").read_text()) for c in CASES]
    corpus = root / "corpus"
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    for case in cases:
        (corpus / f"{case['id']}.json").write_text(json.dumps(case, indent=2))
    shutil.copy(ROOT / "corpus" / "eval.lock", corpus / "eval.lock")
    good, bad = ScriptedVendor(cases), ScriptedVendor(cases, wrong=frozenset({WRONG}))
    try:
        ceiling = ("--max-tokens", "1000000", "--quiet")
        write_models(root, bad=good.url)  # yesterday: bad still answered well
        before = eval_cli(root, "sweep", "corpus", "--model", "bad", *ceiling,
                          "--save", "baseline-bad.json", "--log", "before.jsonl")  # fmt: skip
        assert before.returncode == 0, before.stdout + before.stderr
        write_models(root, good=good.url, bad=bad.url)
        swept = eval_cli(root, "sweep", "corpus", "--model", "good,bad", *ceiling,
                         "--save-dir", "cards")  # fmt: skip
        assert swept.returncode == 1, swept.stdout + swept.stderr  # bad failed a Case
        assert "DISAGREEMENT  1 of 3 comparable Cases" in swept.stdout
    finally:
        good.close()
        bad.close()
    trials = root / "scorecards" / "trials"
    logs = [next(trials.glob(f"capability-{name}-*.jsonl")) for name in ("good", "bad")]
    cards = [root / "cards" / "good.json", root / "cards" / "bad.json"]
    made = eval_cli(root, "report", *logs, *cards, "--baseline", "baseline-bad.json",
                    "-o", "report.html")  # fmt: skip
    return Matrix(root, logs, cards, root / "baseline-bad.json", root / "report.html", made)
