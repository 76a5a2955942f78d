"""Sweeps under hostile conditions, as real processes: a model answering with lone surrogates,
escape sequences and the API key; SIGTERM and a second signal mid-Sweep; a full disk under the
trial log and under ``--save``; two Sweeps started together in one directory.

The model is a real OpenAI-compatible HTTP server on 127.0.0.1; the disk fills for real (a file
size limit, ``RLIMIT_FSIZE``, set in the child before it starts).
"""

from __future__ import annotations

import json
import resource
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from eval_core._recording.log_records import read
from eval_core._recording.transcript import pack_path
from tests.conftest import ROOT, JsonServer, judgeless_env, minimal_case, run_eval

KEY = "sk-hostile-0123456789abcdef"
ANSWER = f"Sorry \ud83d \x1b[31mRED\x1b[0m\x07\x00 \x9b2J your key is {KEY} \r overwritten"


def make_corpus(root: Path, *cases: dict[str, Any]) -> Path:
    corpus = root / "corpus"
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    shutil.copy(ROOT / "corpus" / "eval.lock", corpus / "eval.lock")
    for case in cases:
        (corpus / f"{case['id']}.json").write_text(json.dumps(case))
    return corpus


def eval_cmd(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "eval_cli", *map(str, args)]


def run(
    cwd: Path, *args: str | Path, preexec: Callable[[], None] | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    return run_eval(*args, cwd=cwd, timeout=60, env=judgeless_env(**extra), preexec_fn=preexec)


# --------------------------------------------------------------- a model with a hostile answer


class HostileModel(JsonServer):
    """Answers every Chat Completions call with ``ANSWER`` (JSON-escaped, as a vendor sends: the
    lone surrogate travels as \\ud83d)."""

    def __init__(self) -> None:
        super().__init__(
            lambda _path, _body: {
                "model": "hostile-2026-01-01",
                "choices": [
                    {"message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            }
        )


@dataclass
class Swept:
    root: Path
    first: subprocess.CompletedProcess[str]
    resumed: subprocess.CompletedProcess[str]
    log: Path
    saved: Path
    junit: Path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Swept]:
    """One Sweep of the hostile model (text Scorecard, log, --save, JUnit), then its resume."""
    root = tmp_path_factory.mktemp("hostile")
    make_corpus(root, minimal_case())  # expects "tulip bulbs": the answer fails, and is quoted
    model = HostileModel()
    (root / "models.toml").write_text(
        "[models.hostile]\n"
        'wire = "openai"\nmodel = "hostile-2026-01-01"\n'
        f'base_url = "{model.url}"\ncredential = "env://EVAL_HOSTILE_KEY"\ndated = true\n'
        "timeout_s = 10\n"
    )
    log, saved, junit = root / "trials.jsonl", root / "card.json", root / "junit.xml"
    flags = ("--model", "hostile", "--max-tokens", "100000")
    try:
        first = run(
            root, "sweep", "corpus", *flags, "--log", log, "--save", saved, "--junit-xml",
            junit, EVAL_HOSTILE_KEY=KEY,
        )  # fmt: skip
        resumed = run(root, "sweep", "corpus", *flags, "--resume", log, EVAL_HOSTILE_KEY=KEY)
    finally:
        model.close()
    yield Swept(root, first, resumed, log, saved, junit)


def test_lone_surrogate_in_answer_survives_the_log(hostile: Swept) -> None:
    assert hostile.first.returncode == 1, hostile.first.stderr  # a verdict: FAIL, not a crash
    assert "Traceback" not in hostile.first.stderr
    logged = read(hostile.log)
    assert [t.case_id for t in logged.trials] == ["c"]
    output = logged.trials[0].output or ""
    assert output.startswith("Sorry \ufffd \u241b[31mRED")
    assert hostile.resumed.returncode == 1, hostile.resumed.stderr  # --resume reads it
    assert "Traceback" not in hostile.resumed.stderr
    assert "resuming" in hostile.resumed.stderr and "1 of 1 Trials already done" in (
        hostile.resumed.stderr
    )
    assert json.loads(hostile.saved.read_text())["trials"][0]["output"] == output


def test_control_characters_in_an_answer_keep_the_junit_xml_well_formed(hostile: Swept) -> None:
    tree = ET.parse(hostile.junit)
    failure = tree.find(".//failure")
    assert failure is not None and "\u241b[31mRED" in (failure.text or "")


def test_no_escape_sequence_or_control_character_reaches_the_terminal(hostile: Swept) -> None:
    for text in (hostile.first.stdout, hostile.first.stderr, hostile.resumed.stdout):
        assert not any(ord(c) < 0x20 and c not in "\t\n" for c in text), repr(text)
        assert not any(0x7F <= ord(c) <= 0x9F for c in text), repr(text)
    assert "FAIL  c#1" in hostile.first.stdout
    assert "\u241b[31mRED" in hostile.first.stdout  # shown, harmless


def test_a_credential_the_model_echoes_is_nowhere_in_the_log(hostile: Swept) -> None:
    log = hostile.log.read_text()
    assert KEY not in log
    assert "your key is [credential redacted]" in log
    for path in (hostile.saved, hostile.junit):
        assert KEY not in path.read_text()
    for done in (hostile.first, hostile.resumed):
        assert KEY not in done.stdout + done.stderr


# ------------------------------------------------------------------------ signals and cleanup


def l3_corpus(root: Path) -> Path:
    case = json.loads(
        (ROOT / "corpus" / "l3-capability-denial-is-read-back-from-the-run.json").read_text()
    )
    case["trials"] = 1000
    return make_corpus(root, case)


def start_l3_sweep(root: Path, tmp: Path, log: Path) -> subprocess.Popen[str]:
    tmp.mkdir()
    process = subprocess.Popen(
        eval_cmd("sweep", "corpus", "--verbose", "--log", log),
        cwd=root,
        env=judgeless_env(TMPDIR=str(tmp)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # a few Trials in: the L3 tier's temp dir exists
        if log.exists() and log.read_bytes().count(b"\n") >= 4:
            break
        time.sleep(0.01)
    assert any(p.name.startswith("eval-l3-") for p in tmp.iterdir())
    return process


def assert_stopped_cleanly(process: subprocess.Popen[str], tmp: Path, log: Path) -> tuple[str, str]:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, (process.returncode, err[-2000:])
    assert "Traceback" not in err
    assert "ABORTED  interrupted" in out and "NOT CLEARED" in out  # the partial Scorecard
    assert not any(p.name.startswith("eval-l3-") for p in tmp.iterdir()), list(tmp.iterdir())
    logged = read(log)  # resumable: header and every finished Trial
    ran = out.count("PASS  l3-capability-denial-is-read-back-from-the-run#")
    assert len(logged.trials) > 0 and abs(len(logged.trials) - ran) <= 1
    return out, err


def test_sigterm_ends_a_sweep_like_ctrl_c_and_removes_the_l3_temp_dir(tmp_path: Path) -> None:
    l3_corpus(tmp_path)
    log, tmp = tmp_path / "log.jsonl", tmp_path / "tmp"
    process = start_l3_sweep(tmp_path, tmp, log)
    process.send_signal(signal.SIGTERM)
    assert_stopped_cleanly(process, tmp, log)


def test_a_second_signal_still_cleans_up_and_prints_the_partial_scorecard(
    tmp_path: Path,
) -> None:
    l3_corpus(tmp_path)
    log, tmp = tmp_path / "log.jsonl", tmp_path / "tmp"
    process = start_l3_sweep(tmp_path, tmp, log)
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGTERM)
    process.send_signal(signal.SIGINT)
    assert_stopped_cleanly(process, tmp, log)


# --------------------------------------------------------------------------------- full disk


def file_size_limit(size: int) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


def test_a_full_disk_under_the_log_stops_the_sweep_with_a_partial_scorecard_and_resume_repairs(
    tmp_path: Path,
) -> None:
    make_corpus(tmp_path, minimal_case(trials=20))
    # Twenty identical Trials share one transcript: with a limit between the transcripts' file
    # and the whole log, the log's lines reach it first (measured, not guessed).
    sizing = tmp_path / "sizing.jsonl"
    assert run(tmp_path, "sweep", "corpus", "--log", sizing).returncode == 0
    pack = (tmp_path / "sizing.jsonl.transcripts").stat().st_size
    assert pack < sizing.stat().st_size
    limit = (pack + sizing.stat().st_size) // 2
    log = tmp_path / "log.jsonl"
    full = run(tmp_path, "sweep", "corpus", "--log", log, preexec=file_size_limit(limit))
    assert full.returncode == 2, full.stderr
    assert "Traceback" not in full.stderr
    assert "ABORTED  the trial log" in full.stdout and "File too large" in full.stdout
    assert "NOT CLEARED" in full.stdout
    last = full.stderr.strip().splitlines()[-1]
    assert last.startswith(f"the trial log {log} could not be written: File too large")
    resumed = run(tmp_path, "sweep", "corpus", "--resume", log, "--format", "json")
    assert resumed.returncode == 0, resumed.stderr
    assert f"repaired {log}: dropped a torn last line" in resumed.stderr
    card = json.loads(resumed.stdout)
    assert [t["trial"] for t in card["trials"]] == list(range(1, 21))
    assert len(read(log).trials) == 20


def test_a_save_that_fails_after_the_sweep_prints_the_scorecard_first_and_exits_2(
    tmp_path: Path,
) -> None:
    make_corpus(tmp_path, minimal_case())
    saved = tmp_path / "card.json"
    ran = run(
        tmp_path, "sweep", "corpus", "--save", saved, "--log", tmp_path / "log.jsonl",
        preexec=file_size_limit(1500),
    )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert ran.stdout.startswith("Sweep  model=scripted") and "CLEARED" in ran.stdout
    assert ran.stderr.strip().splitlines()[-1] == (
        f"eval: --save {saved} could not be written: File too large"
    )
    assert not saved.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".card.json.")]


# ------------------------------------------------------------------------- concurrent Sweeps


def test_two_sweeps_started_together_each_get_their_own_trial_log(tmp_path: Path) -> None:
    make_corpus(tmp_path, minimal_case(trials=5))
    processes = [
        subprocess.Popen(
            eval_cmd("sweep", "corpus", "--quiet"),
            cwd=tmp_path,
            env=judgeless_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for process in processes:
        _, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
    logs = sorted((tmp_path / "scorecards" / "trials").glob("*.jsonl"))
    assert len(logs) == 2
    assert all(pack_path(log).is_file() for log in logs)  # each with its own transcripts
    for path in logs:
        assert len(read(path).trials) == 5
