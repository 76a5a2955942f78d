"""Which Cases the durable families' load rules see, through the real ``eval check`` (issue 32).

The journeys check, the run-events read-back's ``applies=`` and the faults check concern only
Cases that use their own fields or kinds (``@own_cases``), so a Corpus without them never imports
journeys or faults. The rules that concern every Case (a scripted Soul writer on L3, a
``turnIndex`` past the Case's last Turn) are the run-events check's, unmarked: a Case that
breaks them is still refused, whatever else it uses, however the plug-in set was opened.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SOUL, eval_imports, manifest_cache, minimal_case


def eval_check(corpus: Path, cache: Path) -> tuple[int, str, set[str]]:
    """``eval check --unlocked`` of ``corpus``: exit code, stderr and the modules imported."""
    return eval_imports(cache, "check", str(corpus))


def write_corpus(directory: Path, *cases: dict[str, Any]) -> Path:
    directory.mkdir(parents=True)
    shutil.copytree(SOUL, directory / "soul")
    for case in cases:
        (directory / f"{case['id']}.json").write_text(json.dumps(case))
    return directory


def l3(case_id: str, **overrides: Any) -> dict[str, Any]:
    case = minimal_case(case_id, tier="l3", expect=[{"kind": "run_status", "status": "succeeded"}])
    case.update(overrides)
    return case


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache directory holding every plug-in's manifest, so ``eval check`` opens lazily."""
    return manifest_cache(tmp_path_factory.mktemp("cache"))


def test_the_every_case_rules_refuse_without_journeys_or_faults_imported(
    tmp_path: Path, cache: Path
) -> None:
    corpus = write_corpus(
        tmp_path / "corpus",
        minimal_case("plain"),
        l3("past", expect=[{"kind": "run_status", "status": "failed", "turnIndex": 2}]),
        l3(
            "soul",
            platformTools=["soul_write"],
            toolResults=[{"name": "soul_write", "output": {}}],
        ),
    )
    code, stderr, modules = eval_check(corpus, cache)
    assert code == 2, stderr
    assert "past.json: $.expect[0].turnIndex: Turn 2 does not exist: this Case runs 1 Turn(s)" in (
        stderr
    )
    assert "soul.json: $.toolResults[0].name: soul_write runs for real on L3" in stderr
    assert "Traceback" not in stderr
    assert "eval_expectations_durable.run_events" in modules
    assert "eval_expectations_durable.journeys" not in modules
    assert "eval_expectations_durable.faults" not in modules


def test_a_journey_case_is_still_checked_by_journeys(tmp_path: Path, cache: Path) -> None:
    corpus = write_corpus(
        tmp_path / "corpus",
        l3("empty", journey=[]),
        l3(
            "far",
            journey=[{"input": [{"role": "user", "content": "And now?"}]}],
            expect=[{"kind": "turn_status", "status": "succeeded", "turnIndex": 3}],
        ),
    )
    code, stderr, modules = eval_check(corpus, cache)
    assert code == 2, stderr
    assert "empty.json: $.journey: must hold at least one further Turn" in stderr
    assert "far.json: $.expect[0].turnIndex: Turn 3 does not exist: this Case runs 2 Turn(s)" in (
        stderr
    )
    assert "eval_expectations_durable.journeys" in modules
