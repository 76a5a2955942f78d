"""`eval rescore`: a Sweep recorded with one version of a family, scored again by the next.

The family is a real distribution (``eval-expectations-brevity``) installed from a site
directory: 0.1.0 counts an answer's characters, 0.2.0 counts them without spaces, so exactly
one Case's verdict flips. The Sweep and the first re-score run through the `eval` command line;
the refusals run in process against plug-in sets built from each version.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType

import msgspec
import pytest

from eval_core._plugins.plugins import PluginSet, build, discover
from eval_core._recording.log_records import LogHeader
from eval_core._recording.triallog import TrialLog
from eval_report.rescore import rescore
from eval_report.saved import Refused
from release_fixtures import HASH, trial
from tests.conftest import SOUL

FAMILY = """
from eval_core._plugins.hookspecs import hookimpl
from eval_core._case.kinds import Expectation, KindSpec, Verdict


class AnswerIsShort(Expectation, tag="answer_is_short", frozen=True):
    {field}: int


def score(e, evidence):
    if evidence.output_text is None:
        return Verdict(False, "no answer observed")
    n = len(evidence.output_text{count})
    return Verdict(n <= e.{field}, f"answer has {{n}} {what}")


@hookimpl
def eval_kinds():
    return [KindSpec(struct=AnswerIsShort, scorer=score)]
"""
VERSIONS = {  # version: (field, how it counts, what it says)
    "0.1.0": ("max_chars", "", "characters"),
    "0.2.0": ("max_chars", '.replace(" ", "")', "characters besides spaces"),
    "0.3.0": ("limit", "", "characters"),  # the kind's schema changed
}
ANSWERS = {
    "short-stays-short": ("Order 4471 ships Monday.", 40),
    "long-stays-long": ("Your tulip bulbs left Lisse this morning and reach you in days.", 20),
    "near-limit-flips": ("Your tulip bulbs ship within 2 business days.", 40),  # 45, 38 w/o spaces
}


def source(version: str) -> str:
    field, count, what = VERSIONS[version]
    return FAMILY.format(field=field, count=count, what=what)


def site(root: Path, version: str, as_version: str = "", name: str = "") -> Path:
    """The family installed: its module and dist-info with the entry point (the source of
    ``version``, labelled ``as_version`` when given)."""
    label = as_version or version
    where = root / (name or f"site-{version}")
    where.mkdir()
    (where / "eval_expectations_brevity.py").write_text(source(version))
    info = where / f"eval_expectations_brevity-{label}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: eval-expectations-brevity\nVersion: {label}\n"
    )
    (info / "entry_points.txt").write_text("[eval.plugins]\nbrevity = eval_expectations_brevity\n")
    return where


@cache
def installed() -> list[tuple[str, str, str, object]]:
    return discover()


def plugins_with(root: Path, version: str | None) -> PluginSet:
    """The installed plug-ins, plus the family at ``version`` (or without it)."""
    found = installed()
    if version is None:
        return build(found)
    name = f"eval_expectations_brevity_{version.replace('.', '_')}"
    path = root / f"{name}.py"
    path.write_text(source(version))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = ModuleType(name)
    spec.loader.exec_module(module)
    return build([*found, ("brevity", "eval-expectations-brevity", version, module)])


def cli(root: Path, version: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``eval`` with the family from ``site-<version>`` (or the site directory so named)."""
    where = root / version if (root / version).is_dir() else root / f"site-{version}"
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run(
        [sys.executable, "-m", "eval_cli", *map(str, args)],
        cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Sweep of three Cases scored by brevity 0.1.0, its trial log with transcripts."""
    root = tmp_path_factory.mktemp("rescore")
    shutil.copytree(SOUL, root / "corpus" / "soul")
    for case_id, (answer, limit) in ANSWERS.items():
        case = {
            "id": case_id,
            "tier": "l2",
            "agent": "support",
            "input": [{"role": "user", "content": "When do my tulip bulbs ship?"}],
            "script": [{"kind": "text", "text": answer}],
            "expect": [{"kind": "answer_is_short", "maxChars": limit}],
        }
        (root / "corpus" / f"{case_id}.json").write_text(json.dumps(case))
    for version in VERSIONS:
        site(root, version)
    swept = cli(root, "0.1.0", "sweep", "corpus", "--unlocked", "--log", "log.jsonl", "-q")
    assert swept.returncode == 1, swept.stdout + swept.stderr  # two Cases fail on 0.1.0
    assert "FAIL  long-stays-long#1" in swept.stdout and "FAIL  near-limit-flips#1" in swept.stdout
    return root


def test_rescore_shows_exactly_the_cases_a_scorer_change_flips(recorded: Path) -> None:
    result = cli(recorded, "0.2.0", "rescore", "log.jsonl")
    assert result.returncode == 1, result.stderr  # a verdict changed
    out = result.stdout
    assert "plug-in  eval-expectations-brevity 0.1.0 -> eval-expectations-brevity 0.2.0" in out
    assert "CHANGED  1 Case verdict(s)\n  near-limit-flips  FAIL -> PASS\n" in out
    assert (
        "  near-limit-flips#1  FAIL -> PASS\n"
        "     - answer_is_short: now pass: answer has 38 characters besides spaces\n"
        "       was fail: answer has 45 characters\n"
    ) in out
    assert "short-stays-short" not in out
    assert out.endswith(
        "2 Trial(s) unchanged (2 with a reworded reason)\n"
        "NOT CLEARED\n  - scripted: 1 Case(s) failed\n"  # long-stays-long still fails
    )


def test_the_exit_code_is_the_rescored_sweeps_gate_not_whether_a_verdict_changed(
    recorded: Path,
) -> None:
    def sweep(case: str, log: str) -> int:
        done = cli(recorded, "0.1.0", "sweep", "corpus", "--unlocked", "--case", case,
                   "--log", log, "-q")  # fmt: skip
        return done.returncode

    assert sweep("short-stays-short", "clean.jsonl") == 0
    same = cli(recorded, "0.1.0", "rescore", "clean.jsonl")  # nothing changes, it cleared
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.endswith("1 Trial(s) unchanged\nCLEARED\n")
    assert sweep("near-limit-flips", "flips.jsonl") == 1
    fixed = cli(recorded, "0.2.0", "rescore", "flips.jsonl")  # a verdict changed: now it clears
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "near-limit-flips  FAIL -> PASS" in fixed.stdout and fixed.stdout.endswith("CLEARED\n")
    failing = cli(recorded, "0.1.0", "rescore", "log.jsonl")  # nothing changes, it failed
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "CHANGED" not in failing.stdout
    assert failing.stdout.endswith("NOT CLEARED\n  - scripted: 2 Case(s) failed\n")
    helped = " ".join(cli(recorded, "0.1.0", "rescore", "--help").stdout.split())
    assert "Exit 0 it clears (whether or not a verdict changed), 1 it does not clear" in helped


def test_a_scorer_edited_without_a_version_bump_is_named_by_its_code(recorded: Path) -> None:
    edited = site(recorded, "0.2.0", as_version="0.1.0", name="site-0.1.0-edited")
    result = cli(recorded, edited.name, "rescore", "log.jsonl")
    assert result.returncode == 1, result.stderr
    [line] = [x for x in result.stdout.splitlines() if x.startswith("  plug-in  ")]
    before, after = line.removeprefix("  plug-in  ").split(" -> ")
    assert before.startswith("eval-expectations-brevity 0.1.0 (code ")
    assert after.startswith("eval-expectations-brevity 0.1.0 (code ") and after != before
    assert "CHANGED  1 Case verdict(s)\n  near-limit-flips  FAIL -> PASS\n" in result.stdout


def test_the_same_plugins_change_nothing(recorded: Path) -> None:
    result = rescore(recorded / "log.jsonl", plugins_with(recorded, "0.1.0"))
    assert not result.changed and not result.skipped and not result.reworded
    assert [t.outcome for t in result.trials] == ["failed", "failed", "passed"]  # by id


def test_an_incompatible_kind_schema_or_a_missing_kind_is_refused_naming_it(
    recorded: Path,
) -> None:
    log = recorded / "log.jsonl"
    with pytest.raises(Refused, match="kind 'answer_is_short' was recorded by an incompatible"):
        rescore(log, plugins_with(recorded, "0.3.0"))
    with pytest.raises(Refused, match=r"kind 'answer_is_short' .* is not installed"):
        rescore(log, plugins_with(recorded, None))
    refused = cli(recorded, "0.3.0", "rescore", "log.jsonl")
    assert refused.returncode == 2
    assert len(refused.stderr.splitlines()) == 1 and "Traceback" not in refused.stderr
    assert "answer_is_short" in refused.stderr and "incompatible schema" in refused.stderr


def test_a_log_of_another_evidence_schema_or_without_transcripts_is_refused(
    recorded: Path, tmp_path: Path
) -> None:
    lines = (recorded / "log.jsonl").read_bytes().split(b"\n")
    header = msgspec.json.decode(lines[0])
    header["evidenceSchema"] = "0123456789abcdef"
    changed = tmp_path / "other.jsonl"
    changed.write_bytes(b"\n".join([msgspec.json.encode(header), *lines[1:]]))
    shutil.copy(recorded / "log.jsonl.transcripts", tmp_path / "other.jsonl.transcripts")
    with pytest.raises(Refused, match="incompatible record schema \\(Evidence 0123456789abcdef"):
        rescore(changed, plugins_with(recorded, "0.1.0"))
    old = tmp_path / "old.jsonl"  # a log from before transcripts were recorded
    log = TrialLog.create(
        old, LogHeader(corpus_hash=HASH, model_id="m", selected=[], repeat=1, started_at="t")
    )
    log.append(trial("a", "passed"))
    log.close()
    with pytest.raises(Refused, match="the log records no transcripts"):
        rescore(old, plugins_with(recorded, "0.1.0"))
