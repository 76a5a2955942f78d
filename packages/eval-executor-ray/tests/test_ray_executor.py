"""``eval sweep --executor ray`` on a real local Ray instance (2 CPUs): the verdicts of a
sequential Sweep, a worker whose plug-in set differs from the lock refused in one line, and an
interrupted Ray Sweep of a real model (over loopback) finished by ``--resume``.

Two drivers are exercised: this process (the instance is already up, the executor joins it)
and an ``eval`` subprocess given ``--address`` (a second driver of the same cluster, with its
own workers), as on a real cluster.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bench.loopback import SlowVendor
from eval_core._loading.opening import Refused
from eval_core._sweeping.sweep import SweepOptions, sweep
from tests.conftest import ROOT
from tests.test_jobs import KEY, project, wait_logged

# A handful of shipped Cases over both tiers: tool calls, guardrails, a checkpoint crash, a
# durable L3 Run with a journey, an L3 File read: each a real Trial through the runtime.
CASES = (
    "checkpoint-crash-replays-the-first-batch",
    "finance-blocklist-holds-inside-a-batch",
    "finance-refund-is-blocklisted",
    "finance-answers-a-structured-refund-summary",
    "l3-journey-a-committed-skill-is-what-the-next-turn-loads",
    "l3-file-pdf-mixed-refuses-its-partial-text-and-keeps-both-pages",
)


def _sweep(tmp: Path, name: str, *extra: str, **options: object) -> tuple[int, dict, Path]:
    log = tmp / f"{name}.jsonl"
    out, err = io.StringIO(), io.StringIO()
    opts = SweepOptions(
        corpus=ROOT / "corpus",
        cases=CASES + tuple(extra),
        repeat=2,
        output_format="json",
        log=log,
        quiet=True,
        root=ROOT,
        **options,
    )
    code = sweep(opts, out, err)
    return code, json.loads(out.getvalue()), log


def _logged(log: Path) -> dict[tuple[str, int], dict]:
    """The trial log's lines by Trial, and each Trial's transcript line beside it."""
    pack = (log.parent / (log.name + ".transcripts")).read_bytes()
    lines = {}
    for raw in log.read_text().splitlines()[1:]:
        line = json.loads(raw)
        at, size = line["transcript"]["at"], line["transcript"]["size"]
        line["evidence"] = json.loads(pack[at : at + size])
        lines[(line["caseId"], line["trial"])] = line
    return lines


def _verdicts(line: dict) -> tuple:
    marks = [(e["kind"], e["passed"]) for e in line["expectations"]]
    return (line["outcome"], marks, line.get("output"))


def test_a_ray_sweep_gives_the_verdicts_of_one_by_one(ray_address: str, tmp_path: Path) -> None:
    code, one, one_log = _sweep(tmp_path, "one")
    ray_code, on_ray, ray_log = _sweep(tmp_path, "ray", executor="ray")
    assert (ray_code, code) == (0, 0)
    assert on_ray["corpusHash"] == one["corpusHash"]
    assert [(t["caseId"], t["trial"], t["outcome"]) for t in on_ray["trials"]] == [
        (t["caseId"], t["trial"], t["outcome"]) for t in one["trials"]
    ]
    assert (on_ray["passed"], on_ray["planned"]) == (one["passed"], 2 * len(CASES))
    # the same trial log, each Trial's transcript made of the Evidence its worker sent back
    # (an L3 Trial's own ids, commits and the runtime's measured durationMs differ from run to
    # run, even in length; an L2 Trial's do not)
    logged, on_workers = _logged(one_log), _logged(ray_log)
    assert {k: _verdicts(v) for k, v in on_workers.items()} == {
        k: _verdicts(v) for k, v in logged.items()
    }
    for key, line in logged.items():
        if not key[0].startswith("l3-"):
            assert on_workers[key]["transcript"]["sha256"] == line["transcript"]["sha256"]
            assert on_workers[key]["evidence"] == line["evidence"]


def _eval(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "eval_cli", "sweep", "corpus", *args],
        cwd=root, env={**os.environ, **(env or {})}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _extra_distribution(where: Path) -> Path:
    """A distribution with one ``eval.plugins`` entry point, importable from ``where`` alone."""
    where.mkdir()
    (where / "eval_extra_family.py").write_text(
        '"""A family the lock does not know."""\n\n'
        "from eval_core._plugins.hookspecs import hookimpl\n\n\n"
        "@hookimpl\ndef eval_kinds():\n    return []\n"
    )
    info = where / "eval_extra_family-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: eval-extra-family\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[eval.plugins]\nextra = eval_extra_family\n")
    return where


def test_a_worker_whose_plug_ins_differ_from_the_lock_is_refused(
    ray_address: str, tmp_path: Path
) -> None:
    """The driver's own set is the locked one; its workers run in a Ray job whose runtime env
    (as ``ray job submit --runtime-env-json`` sets it) adds a family the lock does not know."""
    extra = _extra_distribution(tmp_path / "extra")
    job = {"runtime_env": {"env_vars": {"PYTHONPATH": str(extra)}}}
    done = _eval(
        ROOT, "--case", CASES[0], "--executor", "ray", "--address", ray_address, "--jobs", "1",
        "--log", str(tmp_path / "refused.jsonl"),
        env={"RAY_JOB_CONFIG_JSON_ENV_VAR": json.dumps(job)},
    )  # fmt: skip
    out, err = done.communicate(timeout=240)
    assert done.returncode == 2, err
    assert out == ""
    lines = [line for line in err.splitlines() if line.startswith("--executor")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    line = lines[0]
    assert line.startswith("--executor ray refused: worker ")
    assert "its installed plug-ins differ from eval.lock" in line
    assert "eval-extra-family 0.1 (entry point 'extra') is installed but not locked" in line
    assert not (tmp_path / "refused.jsonl").exists()  # no Trial ran: the new log is removed


def _slow_model_on_ray(root: Path, **options: Any) -> tuple[int, dict]:
    """The project's Corpus swept on Ray by the loopback vendor's ``slow`` model, from the
    project's folder (the caller is in it): the exit code and the Scorecard."""
    output = io.StringIO()
    code = sweep(
        SweepOptions(
            corpus=Path("corpus"), models=("slow",), max_tokens=10_000_000, quiet=True,
            output_format="json", executor="ray", root=root, **options,
        ),
        output, io.StringIO(),
    )  # fmt: skip
    return code, json.loads(output.getvalue())


def test_an_interrupted_ray_sweep_of_a_real_model_resumes(
    ray_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C cancels the Trials in flight on the workers; ``--resume`` (also on Ray, on one
    worker: ``--jobs`` is not part of a Sweep's identity) runs only what the log lacks, and the
    Scorecard is the whole Sweep's, in planned order."""
    vendor = SlowVendor(delay=0.15)
    try:
        root = project(tmp_path, 8, vendor.url)
        log = root / "trials.jsonl"
        model = ["--model", "slow", "--max-tokens", "10000000", "--jobs", "2"]
        running = _eval(
            root, *model, "--format", "json", "--executor", "ray", "--address", ray_address,
            "--log", str(log), env={"EVAL_JOBS_KEY": KEY},
        )  # fmt: skip
        wait_logged(log, 3, within=180)
        running.send_signal(signal.SIGINT)
        out, err = running.communicate(timeout=120)
        assert running.returncode == 1, err
        interrupted = json.loads(out)
        assert interrupted["abortedReason"].startswith("interrupted after"), err
        kept = len(interrupted["trials"])
        assert 3 <= kept < 8
        monkeypatch.chdir(root)
        monkeypatch.setenv("EVAL_JOBS_KEY", KEY)
        code, card = _slow_model_on_ray(root, jobs=1, resume=log)
    finally:
        vendor.close()
    assert code == 0
    assert card.get("abortedReason") is None
    assert [t["caseId"] for t in card["trials"]] == sorted(t["caseId"] for t in card["trials"])
    assert (card["passed"], len(card["trials"])) == (8, 8)
    logged = [json.loads(line)["caseId"] for line in log.read_text().splitlines()[1:]]
    assert sorted(logged) == sorted(t["caseId"] for t in card["trials"])  # each Trial once


def test_an_address_without_an_executor_or_an_unknown_executor_is_refused() -> None:
    for options, says in (
        (SweepOptions(address="auto"), "--address names an executor's cluster"),
        (SweepOptions(executor="spark"), "no executor 'spark'; installed executors: ray"),
    ):
        with pytest.raises(Refused) as refused:
            sweep(options, io.StringIO(), io.StringIO())
        assert says in str(refused.value)
        assert "\n" not in str(refused.value)


def test_a_dollar_ceiling_on_ray_stops_within_the_trials_in_flight(
    ray_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ceiling is asked on the driver before each launch, as with ``--jobs``."""
    vendor = SlowVendor(delay=0.05)
    try:
        root = project(tmp_path, 24, vendor.url)
        monkeypatch.chdir(root)
        monkeypatch.setenv("EVAL_JOBS_KEY", KEY)
        code, card = _slow_model_on_ray(root, jobs=4, max_spend=0.05)
    finally:
        vendor.close()
    assert code == 1
    assert card["abortedReason"].startswith("spend ceiling reached")
    # 1100 tokens at $10/Mtok: $0.011 a Trial; $0.05 is crossed by the 5th, then at most 3 more
    assert 5 <= len(card["trials"]) <= 5 + 3
    assert card["spend"]["costUsd"] <= 0.05 + 4 * 0.011


def test_an_address_that_accepts_and_never_answers_is_refused_within_the_probe() -> None:
    """Ray itself would retry such a GCS for minutes; the probe's handshake refuses it."""
    import socket

    from eval_executor_ray.executor import PROBE_S

    silent = socket.create_server(("127.0.0.1", 0))
    try:
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        with pytest.raises(Refused) as refused:
            sweep(SweepOptions(executor="ray", address=address), io.StringIO(), io.StringIO())
        assert time.monotonic() - started < PROBE_S + 5
        assert "does not answer as a Ray GCS" in str(refused.value)
    finally:
        silent.close()
