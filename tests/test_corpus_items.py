"""Cases as pytest items: ``pytest --eval-corpus DIR`` collects one item per Case (eval-core's
``pytest11`` plug-in), the verdict and its reasons in the failure message, a fault as an error,
``-k`` selecting Cases, and the lock rules of ``eval sweep``. Each run is a real pytest process
in a directory of its own (no configuration of this repository applies), without hypothesis's
pytest plug-in (it imports hypothesis at the summary: a second a process, for nothing here) nor
langsmith's (it imports langsmith at start-up, 0.7 s of CPU a process and each xdist worker's,
as this repository's own ``addopts`` say).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from eval_core._loading.corpus import Corpus
from tests.conftest import ROOT, WriteCase, exhausted_case, minimal_case


def pytest_run(
    cwd: Path, *args: str | Path, config: str | Path = "/dev/null"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(config), "--rootdir", str(cwd),
         "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-q",
         *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        check=False,
    )  # fmt: skip


def test_the_shipped_corpus_is_one_passing_item_per_case(corpus: Corpus, tmp_path: Path) -> None:
    result = pytest_run(tmp_path, "--eval-corpus", ROOT / "corpus", "-n", "0")
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"{len(corpus.cases)} passed" in result.stdout
    assert f"corpusHash {corpus.hash}" in result.stdout


def test_a_rate_is_reported_as_a_skip_never_as_a_pass_or_a_failure(tmp_path: Path) -> None:
    """A red-team attack's strategy variants measure the model's resistance: like the Sweep,
    the items never gate on them; the gating attack itself passes."""
    result = pytest_run(
        tmp_path, "--eval-corpus", ROOT / "corpus" / "red-team", "-n", "0", "-rs",
        "-k", "administrator-role-grab",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed" in result.stdout
    assert "measures a rate, never gated (PASS)" in result.stdout or (
        "measures a rate, never gated (FAIL)" in result.stdout
    )


def test_a_failed_case_shows_its_reasons_and_a_fault_is_an_error_under_xdist(
    corpus_dir: Path, write_case: WriteCase, tmp_path: Path
) -> None:
    write_case(minimal_case("passes"))
    write_case(
        minimal_case(
            "fails",
            script=[{"kind": "text", "text": "I have no idea where it is, sorry."}],
            expect=[
                {"kind": "output_contains", "text": "tulip bulbs"},
                {"kind": "output_contains", "text": "2 business days", "ungrounded": "a test"},
            ],
        )
    )
    write_case(exhausted_case())
    result = pytest_run(tmp_path, "--eval-corpus", corpus_dir, "--eval-unlocked", "-n", "2")
    assert result.returncode == 1, result.stdout
    out = result.stdout
    assert "1 failed, 1 passed, 1 error" in out
    assert (
        "FAIL  fails\n"
        '  #1  - output_contains: answer "I have no idea where it is, sorry." does not contain '
        '"tulip bulbs"\n'
    ) in out
    assert "ERR  exhausted#1  ScriptExhaustedError: script exhausted" in out
    assert "Traceback" not in out

    selected = pytest_run(
        tmp_path, "--eval-corpus", corpus_dir, "--eval-unlocked", "-n", "0", "-k", "passes"
    )
    assert selected.returncode == 0
    assert "1 passed, 2 deselected" in selected.stdout


def test_the_lock_rules_apply_to_a_collected_corpus(
    corpus_dir: Path, write_case: WriteCase, tmp_path: Path
) -> None:
    write_case(minimal_case())
    refused = pytest_run(tmp_path, "--eval-corpus", corpus_dir, "-n", "0")
    assert refused.returncode == 2  # a collection error, as `eval sweep` refuses
    assert "no lock file; run `eval lock` to pin the plug-in set" in refused.stdout
    assert "Traceback" not in refused.stdout
    lock = json.loads((ROOT / "corpus" / "eval.lock").read_text())
    (corpus_dir / "eval.lock").write_text(json.dumps(lock))
    pinned = pytest_run(tmp_path, "--eval-corpus", corpus_dir, "-n", "0")
    assert pinned.returncode == 0, pinned.stdout
    assert "1 passed" in pinned.stdout


def test_a_corpus_configured_in_pyproject_joins_the_tests_once(
    corpus_dir: Path, write_case: WriteCase, tmp_path: Path
) -> None:
    write_case(minimal_case())
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.pytest.ini_options]\neval_corpus = ["corpus"]\n')

    def collected(*args: str) -> list[str]:
        found = pytest_run(tmp_path, "--eval-unlocked", "-n", "0", "--co", *args, config=config)
        assert found.returncode == 0, found.stdout
        return [line for line in found.stdout.splitlines() if "::" in line]

    assert collected() == ["corpus::c", "test_plain.py::test_plain"]  # pytest alone: both, once
    assert collected("test_plain.py") == ["test_plain.py::test_plain"]  # like testpaths
