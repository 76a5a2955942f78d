"""`eval` end to end, as a release manager runs it: exit codes and what goes to which stream."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, WriteCase, exhausted_case, minimal_case, run_eval


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`eval ARGS` from a throwaway working directory (a Sweep writes its trial log there)."""
    with tempfile.TemporaryDirectory() as cwd:
        return run_eval(*args, cwd=Path(cwd), timeout=60)


@pytest.fixture
def locked(corpus_dir: Path) -> Path:
    assert run("lock", corpus_dir).returncode == 0
    return corpus_dir


def failing_case() -> dict[str, Any]:
    return minimal_case(
        "fails",
        script=[{"kind": "text", "text": "I have no idea where it is, sorry."}],
        expect=[{"kind": "output_contains", "text": "business days"}],
    )


def test_a_cleared_sweep_exits_0_with_only_the_scorecard_on_stdout(
    locked: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case())
    result = run("sweep", locked)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Sweep  model=scripted  corpus=")
    assert "PASS  c#1" not in result.stdout  # failures and the summary; --verbose lists all
    assert "1 passed, 0 failed, 0 errored" in result.stdout
    assert result.stdout.rstrip().endswith("CLEARED")
    assert "[1/1] c#1 PASS" in result.stderr  # progress goes to stderr, one plain line per Trial


def test_a_failed_expectation_exits_1_and_quotes_the_answer(
    locked: Path, write_case: WriteCase
) -> None:
    write_case(failing_case())
    result = run("sweep", locked)
    assert result.returncode == 1
    assert "FAIL  fails#1" in result.stdout
    assert "I have no idea where it is, sorry." in result.stdout
    assert "NOT CLEARED" in result.stdout
    assert "scripted: 1 Case(s) failed" in result.stdout


def test_the_text_scorecard_shows_failures_and_verbose_lists_every_case(
    locked: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case())
    write_case(failing_case())
    quiet, verbose = run("sweep", locked), run("sweep", locked, "--verbose")
    assert quiet.returncode == verbose.returncode == 1
    assert "FAIL  fails#1" in quiet.stdout and "PASS  c#1" not in quiet.stdout
    assert "1 passed, 1 failed, 0 errored" in quiet.stdout
    assert "FAIL  fails#1" in verbose.stdout and "PASS  c#1  [loop completed]" in verbose.stdout
    as_json = run("sweep", locked, "--format", "json")
    assert [t["caseId"] for t in json.loads(as_json.stdout)["trials"]] == ["c", "fails"]


def test_an_errored_trial_is_not_a_failure_and_does_not_clear(
    locked: Path, write_case: WriteCase
) -> None:
    write_case(exhausted_case())
    result = run("sweep", locked, "--format", "json")
    assert result.returncode == 1
    card = json.loads(result.stdout)
    assert (card["passed"], card["failed"], card["errored"]) == (0, 0, 1)
    assert "script exhausted" in card["trials"][0]["error"]


def test_json_save_and_selection(locked: Path, write_case: WriteCase, tmp_path: Path) -> None:
    write_case(minimal_case())
    write_case(failing_case())
    saved = tmp_path / "out" / "card.json"
    result = run("sweep", locked, "--case", "c", "--format", "json", "--save", saved)
    card = json.loads(result.stdout)
    assert json.loads(saved.read_text()) == card
    assert card["selected"] == ["c"]
    assert [t["caseId"] for t in card["trials"]] == ["c"]
    assert result.returncode == 0


def test_repeat_records_the_noise_floor(locked: Path, write_case: WriteCase) -> None:
    write_case(minimal_case())
    card = json.loads(run("sweep", locked, "--repeat", "3", "--format", "json").stdout)
    assert len(card["trials"]) == 3
    assert card["noise"] == {"repeats": 3, "measured": ["c"], "flapping": []}


def test_a_refused_corpus_exits_2_without_a_traceback(locked: Path, write_case: WriteCase) -> None:
    write_case(minimal_case(expect=[]))
    for command in ("sweep", "check", "hash"):
        result = run(command, locked)
        assert result.returncode == 2
        assert result.stdout == ""
        assert "Traceback" not in result.stderr
        assert "c.json: $.expect: a Case that expects nothing always passes" in result.stderr


def test_usage_errors_exit_2(locked: Path, write_case: WriteCase) -> None:
    write_case(minimal_case())
    assert run("sweep", locked, "--no-such-flag").returncode == 2
    unknown = run("sweep", locked, "--case", "ghost")
    assert unknown.returncode == 2
    assert "no such Case" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_an_unpinned_plugin_set_is_refused_unless_unlocked(
    corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case())
    lock = corpus_dir / "eval.lock"
    assert run("lock", corpus_dir).returncode == 0
    data = json.loads(lock.read_text())
    data["plugins"][0]["version"] = "0.0.1"
    lock.write_text(json.dumps(data))
    refused = run("sweep", corpus_dir)
    assert refused.returncode == 2
    assert "locked 0.0.1, installed" in refused.stderr
    unlocked = run("sweep", corpus_dir, "--unlocked", "--format", "json")
    assert unlocked.returncode == 0
    assert json.loads(unlocked.stdout)["unlocked"] is True


def test_check_and_hash(locked: Path, write_case: WriteCase) -> None:
    write_case(minimal_case())
    check = run("check", locked)
    assert check.returncode == 0
    assert check.stdout.startswith("1 Cases  l2=1  suite=capability")
    digest = run("hash", locked).stdout.strip()
    assert len(digest) == 64
    assert f"corpusHash {digest}" in check.stdout


def test_help_documents_the_exit_codes() -> None:
    result = run("--help")
    assert result.returncode == 0
    for words in ("0 cleared", "1 not cleared", "2 refused input", "3 comparison refused"):
        assert words in " ".join(result.stdout.split())


def test_the_committed_schema_is_current() -> None:
    result = run("schema")
    committed = (ROOT / "schema" / "case.schema.json").read_text()
    assert result.stdout == committed, "regenerate: uv run eval schema -o schema/case.schema.json"
