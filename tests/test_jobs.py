"""Trials at once (``--jobs N``): the same Scorecard as one by one, ceilings that overrun by at
most N-1 Trials in flight, a rate-limited vendor that gets fewer calls instead of more retries,
and an interrupted concurrent Sweep that resumes to the same Scorecard."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.loopback import SlowVendor
from eval_core._case.case import CaseBase
from eval_core._case.evidence import Evidence
from eval_core._loading.corpus import Corpus
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import Scorecard
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult
from tests.conftest import ROOT

KEY = "sk-jobs-test-0123456789abcdef"
# The provider of the MCP Cases starts once per Sweep: a property over many Sweeps leaves it out.
NO_PROVIDER = sorted(
    p.stem for p in (ROOT / "corpus").glob("*.json") if not p.stem.startswith("l3-mcp-")
)


def verdicts(card: Scorecard) -> list[tuple[str, int, str, list[tuple[str, bool]]]]:
    """What a Scorecard says, minus what timing may change (durations, git commit ids)."""
    return [
        (t.case_id, t.trial, t.outcome, [(e.kind, e.passed) for e in t.expectations])
        for t in card.trials
    ]


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    cases=st.lists(st.sampled_from(NO_PROVIDER), min_size=1, max_size=24, unique=True),
    jobs=st.integers(2, 8),
    repeat=st.integers(1, 2),
)
def test_trials_at_once_give_the_scorecard_of_one_by_one(
    corpus: Corpus,
    real_host: Host,
    plugins: PluginSet,
    cases: list[str],
    jobs: int,
    repeat: int,
) -> None:
    def sweep(n: int) -> Scorecard:
        return run_sweep(
            corpus, real_host, ScriptedBinding(), plugins, select=cases, repeat=repeat, jobs=n
        )

    one_by_one, at_once = sweep(1), sweep(jobs)
    assert verdicts(at_once) == verdicts(one_by_one)
    assert (at_once.passed, at_once.failed, at_once.errored) == (
        one_by_one.passed,
        one_by_one.failed,
        one_by_one.errored,
    )


def test_each_trials_evidence_reaches_the_log_beside_its_own_trial(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    """Transcripts under ``--jobs``: the Evidence handed over just before a Trial is recorded
    is that Trial's (its final answer is the one the Trial scored), in completion order."""

    def sweep(jobs: int) -> list[tuple[str, int, str | None]]:
        handed: list[tuple[str, str | None]] = []
        paired: list[tuple[str, int, str | None]] = []

        def on_evidence(case: CaseBase, evidence: Evidence) -> None:
            handed.append((case.id, evidence.output_text))

        def on_trial(index: int, total: int, result: TrialResult) -> None:
            case_id, text = handed.pop()
            assert case_id == result.case_id and text == result.output
            paired.append((case_id, result.trial, text))

        run_sweep(
            corpus,
            real_host,
            ScriptedBinding(),
            plugins,
            select=NO_PROVIDER[:24],
            repeat=2,
            jobs=jobs,
            on_trial=on_trial,
            on_evidence=on_evidence,
        )
        return sorted(paired)

    assert sweep(6) == sweep(1)


def test_the_whole_corpus_at_once_clears_with_its_provider(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    card = run_sweep(corpus, real_host, ScriptedBinding(), plugins, jobs=8)
    assert (card.failed, card.errored, card.passed) == (0, 0, len(corpus.cases))
    assert [t.case_id for t in card.trials] == [c.id for c in corpus.cases]  # planned order


def wait_logged(log: Path, lines: int, within: float) -> None:
    """Wait, at most ``within`` seconds, until the running Sweep's trial log holds more than
    ``lines`` lines (its header and finished Trials): a Sweep well under way, to interrupt."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and not (
        log.exists() and log.read_bytes().count(b"\n") > lines
    ):
        time.sleep(0.01)


def project(tmp_path: Path, cases: int, url: str) -> Path:
    sys.path.insert(0, str(ROOT / "bench"))
    from synthetic import make_corpus

    make_corpus(tmp_path / "corpus", cases, tool_call=False)
    (tmp_path / "models.toml").write_text(
        f'[models.slow]\nwire = "openai"\nmodel = "slow-2026-01-01"\nbase_url = "{url}"\n'
        'credential = "env://EVAL_JOBS_KEY"\ndated = true\n'
        "price_input_per_mtok = 10.0\nprice_output_per_mtok = 10.0\ntimeout_s = 10\n"
    )
    return tmp_path


def sweep(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eval_cli", "sweep", "corpus", "--model", "slow", "--quiet",
         "--format", "json", *args],
        cwd=root, env={**os.environ, "EVAL_JOBS_KEY": KEY}, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def test_a_dollar_ceiling_with_jobs_stops_within_the_trials_in_flight(tmp_path: Path) -> None:
    vendor = SlowVendor(delay=0.05)
    try:
        root = project(tmp_path, 60, vendor.url)
        # 1100 tokens at $10/Mtok: $0.011 a Trial; $0.05 is reached after 5 Trials
        done = sweep(root, "--jobs", "8", "--max-tokens", "10000000", "--max-spend", "0.05")
    finally:
        vendor.close()
    assert done.returncode == 1, done.stderr
    card = json.loads(done.stdout)
    assert card["abortedReason"].startswith("spend ceiling reached")
    assert 5 <= len(card["trials"]) <= 5 + 7  # the crossing Trial, then at most N-1 in flight
    assert card["spend"]["costUsd"] <= 0.05 + 8 * 0.011


def test_a_rate_limited_vendor_gets_fewer_calls_at_once(tmp_path: Path) -> None:
    vendor = SlowVendor(delay=0.05, limit=2)
    try:
        root = project(tmp_path, 40, vendor.url)
        done = sweep(root, "--jobs", "8", "--max-tokens", "10000000")
    finally:
        vendor.close()
    card = json.loads(done.stdout)
    assert card["errored"] == 0, [t.get("error") for t in card["trials"] if t.get("error")][:3]
    assert done.returncode == 0, done.stderr
    assert vendor.rate_limited > 0  # it did push back, and the window narrowed to fit


def test_an_interrupted_sweep_at_once_resumes_to_the_same_scorecard(tmp_path: Path) -> None:
    jobs = "4"
    vendor = SlowVendor(delay=0.02)
    try:
        root = project(tmp_path, 80, vendor.url)
        full = sweep(root, "--jobs", jobs, "--max-tokens", "10000000")
        assert full.returncode == 0, full.stderr
        log = root / "trials.jsonl"
        command = [sys.executable, "-m", "eval_cli", "sweep", "corpus", "--model", "slow",
                   "--format", "json", "--max-tokens", "10000000", "--jobs", jobs]  # fmt: skip
        env = {**os.environ, "EVAL_JOBS_KEY": KEY}
        process = subprocess.Popen(
            [*command, "--log", str(log)], cwd=root, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        wait_logged(log, 20, within=60)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=60)
        interrupted = json.loads(out)
        assert interrupted["abortedReason"].startswith("interrupted after")
        resumed = subprocess.run(
            [*command, "--quiet", "--resume", str(log)], cwd=root, env=env, text=True,
            capture_output=True, timeout=120, check=False,
        )  # fmt: skip
    finally:
        vendor.close()
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    again, first = json.loads(resumed.stdout), json.loads(full.stdout)
    assert [(t["caseId"], t["outcome"]) for t in again["trials"]] == [
        (t["caseId"], t["outcome"]) for t in first["trials"]
    ]


def test_an_interrupt_cuts_the_model_calls_in_flight_short(tmp_path: Path) -> None:
    """Ctrl-C during two Trials at once, both waiting on a vendor that holds its replies for a
    minute: the calls in flight are abandoned (their connections closed), the partial Scorecard
    is written at once and neither Trial is recorded; never a wait for the vendor's answers."""
    vendor = SlowVendor(delay=60)
    try:
        root = project(tmp_path, 2, vendor.url)
        models = root / "models.toml"
        models.write_text(models.read_text().replace("timeout_s = 10", "timeout_s = 120"))
        process = subprocess.Popen(
            [sys.executable, "-m", "eval_cli", "sweep", "corpus", "--model", "slow", "--quiet",
             "--format", "json", "--max-tokens", "10000000", "--jobs", "2"],
            cwd=root, env={**os.environ, "EVAL_JOBS_KEY": KEY}, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while vendor.in_flight < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.01)
        assert vendor.in_flight == 2, "both Trials were waiting on the vendor"
        process.send_signal(signal.SIGINT)
        try:  # a third of the vendor's hold: the calls were cut, not waited out
            out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise AssertionError("the interrupted Sweep waited for its model calls") from None
    finally:
        vendor.close()
    card = json.loads(out)
    assert card["abortedReason"] == "interrupted after 0 of 2 Trials", (card, err[-2000:])
    assert card["trials"] == []
