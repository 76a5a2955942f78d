"""The release gate end to end: Baselines, promotion, deltas, the Matrix, CI outputs, resume.

Real models are real HTTP servers on 127.0.0.1 speaking the OpenAI wire (answering as each
Case's script says); the project is a real git repository in a temp dir, so the clean/dirty
rule is the real one. Each ``eval`` runs through the real command line in this process
(``eval_in_process``: what it computes and says, its exit code); the interrupted Sweep is a real
process, signalled.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml

from eval_core._util.provenance import is_clean, tree_commit
from tests.conftest import ROOT, ScriptedVendor, eval_in_process, judgeless_env, loopback_models

CASES = [
    "finance-refund-is-blocklisted",
    "triage-discovers-repository-before-search",
    "support-reads-two-tickets-in-one-batch",
]
KEY = "sk-release-test-0123456789"


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cases = [json.loads((ROOT / "corpus" / f"{c}.json").read_text()) for c in CASES]
        corpus = root / "corpus"
        shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
        for case in self.cases:
            (corpus / f"{case['id']}.json").write_text(json.dumps(case, indent=2))
        shutil.copy(ROOT / "corpus" / "eval.lock", corpus / "eval.lock")
        self.good = ScriptedVendor(self.cases)
        self.bad = ScriptedVendor(self.cases, wrong=frozenset({CASES[2]}))
        self.flaky = ScriptedVendor(self.cases)  # its ``down`` Cases are answered 503
        self.models(
            good=self.good.url,
            bad=self.bad.url,
            down="http://127.0.0.1:9/v1",
            flaky=self.flaky.url,
        )
        (root / ".gitignore").write_text("scorecards/\n")
        git(root, "init", "-q")
        git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
        git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "corpus")

    def models(self, **urls: str) -> None:
        bound = {"down": 1.0, "flaky": 1.0}  # a vendor fault errs at once, not after retries
        loopback_models(
            self.root / "models.toml", "EVAL_RELEASE_KEY", trial_timeout_s=bound, **urls
        )

    def commit(self) -> None:
        git(self.root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
        git(self.root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x")

    def sweep(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = judgeless_env(EVAL_RELEASE_KEY=KEY)
        return eval_in_process("sweep", "corpus", "--quiet", *args, cwd=self.root, env=env)

    def close(self) -> None:
        self.good.close()
        self.bad.close()
        self.flaky.close()


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    made = Project(tmp_path)
    yield made
    made.close()


REAL = ("--max-tokens", "1000000")


def test_promotion_writes_the_canonical_baseline_and_a_clean_rerun_compares(
    project: Project,
) -> None:
    first = project.sweep("--model", "good", *REAL, "--promote")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Promoted  good Baseline at " in first.stdout
    assert "records no noise floor" in first.stdout
    path = project.root / "baselines" / "good.json"
    stored = json.loads(path.read_text())
    assert stored["schemaVersion"] == 3
    assert is_clean(stored["corpusCommit"])
    assert KEY not in path.read_text() + first.stdout + first.stderr
    project.commit()
    again = project.sweep("--model", "good", *REAL, "--baseline")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "3 passed before, 3 passed after" in again.stdout
    assert "NOTE  the Baseline was promoted without --repeat" in again.stdout


def test_a_regression_fails_and_blocks_promotion(project: Project) -> None:
    assert project.sweep("--model", "good", *REAL, "--promote").returncode == 0
    project.commit()
    project.models(good=project.bad.url)  # the same model id now answers one Case badly
    project.commit()
    result = project.sweep("--model", "good", *REAL, "--baseline", "--promote")
    assert result.returncode == 1
    assert f"REGRESSED\n  {CASES[2]}  PASS -> FAIL" in result.stdout
    assert "good: 1 Case(s) regressed against the Baseline" in result.stdout
    assert "promotion refused: 1 Case(s) regressed" in result.stdout


def test_a_baseline_of_another_corpus_is_refused_not_computed(project: Project) -> None:
    assert project.sweep("--model", "good", *REAL, "--promote").returncode == 0
    case = project.root / "corpus" / f"{CASES[0]}.json"
    data = json.loads(case.read_text())
    data["trials"] = 2  # one Case edited: a different corpusHash
    case.write_text(json.dumps(data))
    result = project.sweep("--model", "good", *REAL, "--baseline")
    assert result.returncode == 3
    assert "REFUSED  no delta computed: different Corpora" in result.stdout
    assert "Delta" not in result.stdout


def test_baseline_path_with_promote_leaves_that_file_untouched(project: Project) -> None:
    assert project.sweep("--model", "good", *REAL, "--promote").returncode == 0
    other = project.root / "elsewhere.json"
    shutil.copy(project.root / "baselines" / "good.json", other)
    project.commit()
    before = other.read_bytes()
    canonical = (project.root / "baselines" / "good.json").read_bytes()
    time.sleep(1.1)  # savedAt has a one-second resolution
    result = project.sweep("--model", "good", *REAL, "--baseline", str(other), "--promote")
    assert result.returncode == 0, result.stdout + result.stderr
    assert other.read_bytes() == before
    assert (project.root / "baselines" / "good.json").read_bytes() != canonical


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (("--promote",), "the scripted binding is told what to say"),
        (("--model", "down", *REAL, "--promote"), "3 Trial(s) errored"),
        (("--model", "good", "--max-tokens", "150", "--promote"), "the Sweep is partial"),
    ],
)
def test_promotion_refusals(project: Project, args: tuple[str, ...], why: str) -> None:
    result = project.sweep(*args)
    assert result.returncode == 1
    assert f"promotion refused: {why}" in result.stdout
    assert not (project.root / "baselines").exists()


def test_promotion_from_a_dirty_tree_is_refused(project: Project) -> None:
    (project.root / "corpus" / "soul" / "notes.md").write_text("uncommitted\n")
    result = project.sweep("--model", "good", *REAL, "--promote")
    assert result.returncode == 1
    assert "promotion refused: the tree is not clean" in result.stdout


def test_usage_refusals(project: Project) -> None:
    for args, words in (
        (("--case", CASES[0], "--baseline"), "a partial Sweep is never compared"),
        (("--model", "good,bad", *REAL, "--baseline", "x.json"), "--baseline PATH names one"),
        (("--model", "good,bad", *REAL, "--save", "x.json"), "--save-dir"),
        (("--model", "good", *REAL, "--rerun-errored"), "--rerun-errored reruns a trial log"),
        (
            ("--model", "good", *REAL, "--unlocked", "--promote"),
            "--promote is refused with --unlocked",
        ),
    ):
        result = project.sweep(*args)
        assert result.returncode == 2, result.stderr
        assert words in result.stderr
        assert "Traceback" not in result.stderr


def test_rerun_errored_replaces_only_the_vendor_errored_trials(project: Project) -> None:
    """A server failing mid-Sweep errs some Trials (``model_*``); plain ``--resume`` keeps them
    as done, ``--resume --rerun-errored`` runs those again and nothing else: the log keeps both
    lines, the later wins, and the Sweep is whole (promotable) with one Spend of every Trial."""
    log = project.root / "scorecards" / "flaky.jsonl"
    project.flaky.down = {CASES[1]}
    first = project.sweep("--model", "flaky", *REAL, "--log", str(log), "--format", "json")
    assert first.returncode == 1, first.stderr
    card = json.loads(first.stdout)
    assert (card["passed"], card["errored"]) == (2, 1)
    errored = next(t for t in card["trials"] if t["outcome"] == "errored")
    assert errored["caseId"] == CASES[1]
    assert errored["error"].startswith("model_provider_unavailable: ")

    project.flaky.down = set()  # the server is back
    asked = project.flaky.requests
    kept = project.sweep("--model", "flaky", *REAL, "--resume", str(log), "--format", "json")
    assert kept.returncode == 1
    assert json.loads(kept.stdout)["errored"] == 1  # plain --resume: every recorded Trial done
    assert project.flaky.requests == asked

    args = ("--model", "flaky", *REAL, "--resume", str(log), "--rerun-errored")
    rerun = project.sweep(*args, "--format", "json", "--promote")
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "Promoted  flaky Baseline at " in rerun.stderr
    card = json.loads(rerun.stdout)
    assert (card["passed"], card["errored"], card["skipped"]) == (3, 0, 0)
    users = {_first_user(body) for body in project.flaky.bodies[asked:]}
    assert users == {_first_user_of(project.cases[1])}  # only the errored Case ran again
    lines = log.read_text().splitlines()
    assert len(lines) == 1 + 3 + 1  # the header, the first three, the rerun: both lines kept
    assert json.loads(lines[-1])["caseId"] == CASES[1]
    spend = card["spend"]
    assert spend["calls"] == sum(t["modelCalls"] for t in card["trials"])
    assert spend["inputTokens"] == sum(t["usage"]["input_tokens"] for t in card["trials"])
    assert spend["outputTokens"] == sum(t["usage"]["output_tokens"] for t in card["trials"])
    priced = (spend["inputTokens"] * 1.0 + spend["outputTokens"] * 4.0) / 1_000_000
    assert spend["costUsd"] == pytest.approx(priced)  # dollars of the same Trials
    assert spend["resumed"] == 2

    again = project.sweep("--model", "flaky", *REAL, "--resume", str(log), "--rerun-errored")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "(all 3 Trials, 3 resumed from the log)" in again.stdout  # the text Spend line


def _first_user(body: dict[str, Any]) -> str:
    first = next(m for m in body["messages"] if m["role"] == "user")
    content = first["content"]
    return content if isinstance(content, str) else content[0]["text"]


def _first_user_of(case: dict[str, Any]) -> str:
    first = next(m for m in case["input"] if m["role"] == "user")
    content = first["content"]
    return content if isinstance(content, str) else content[0]["text"]


def test_junit_tells_a_regression_from_a_failure_already_in_the_baseline(
    project: Project,
) -> None:
    """The Baseline already failed one Case; now a second fails too: CI sees ``regression``
    for the new one and ``known`` for the old one."""
    before = ScriptedVendor(project.cases, wrong=frozenset({CASES[0]}))
    after = ScriptedVendor(project.cases, wrong=frozenset({CASES[0], CASES[2]}))
    try:
        project.models(good=before.url)
        project.commit()
        promoted = project.sweep("--model", "good", *REAL, "--promote")
        assert "Promoted  good Baseline" in promoted.stdout, promoted.stdout + promoted.stderr
        project.models(good=after.url)
        project.commit()
        junit = project.root / "junit.xml"
        result = project.sweep("--model", "good", *REAL, "--baseline", "--junit-xml", str(junit))
    finally:
        before.close()
        after.close()
    assert result.returncode == 1
    assert f"REGRESSED\n  {CASES[2]}  PASS -> FAIL" in result.stdout
    (suite,) = list(JUnitXml.fromfile(str(junit)))
    assert {p.name: p.value for p in suite.properties()}["baseline"] == "compared"
    kinds = {
        case.name.split("#")[0]: [r.type for r in case.result if r._tag == "failure"]
        for case in suite
    }
    assert kinds == {CASES[0]: ["known"], CASES[1]: [], CASES[2]: ["regression"]}
    failures = [r for case in suite for r in case.result if r._tag == "failure"]
    assert all(r.message and ":" in r.message for r in failures)  # the failing kind stays


def test_the_matrix_is_a_control_with_ci_outputs(project: Project) -> None:
    out = project.root / "cards"
    junit = project.root / "junit.xml"
    result = project.sweep(
        "--model", "good,bad", *REAL, "--save-dir", str(out), "--junit-xml", str(junit)
    )
    assert result.returncode == 1  # bad failed a Case
    text = result.stdout
    assert text.startswith("Matrix  corpus=")
    assert "DISAGREEMENT  1 of 3 comparable Cases" in text
    assert f"  {CASES[2]}  good=PASS  bad=FAIL" in text
    assert "not a ranking" in text
    assert text.index("model=good") < text.index("model=bad")  # declared order
    assert sorted(p.name for p in out.iterdir()) == ["bad.json", "good.json"]
    suites = list(JUnitXml.fromfile(str(junit)))
    assert [(s.tests, s.failures, s.errors) for s in suites] == [(3, 0, 0), (3, 1, 0)]


def test_a_leg_whose_every_trial_errored_is_unavailable_and_the_other_is_kept(
    project: Project,
) -> None:
    result = project.sweep("--model", "down,good", *REAL, "--format", "json")
    assert result.returncode == 1
    cards = json.loads(result.stdout)
    assert [c["modelId"] for c in cards] == ["down", "good"]
    assert cards[1]["passed"] == 3
    assert "down: never measured (every Trial errored: model_unreachable" in result.stderr


def test_compare_two_saved_scorecards(project: Project) -> None:
    a, b = project.root / "a.json", project.root / "b.json"
    assert project.sweep("--model", "good", *REAL, "--save", str(a)).returncode == 0
    project.models(good=project.bad.url)
    assert project.sweep("--model", "good", *REAL, "--save", str(b)).returncode == 1

    def compare(x: Path, y: Path) -> subprocess.CompletedProcess[str]:
        return eval_in_process("compare", x, y, cwd=project.root)

    assert compare(a, a).returncode == 0
    regressed = compare(a, b)
    assert regressed.returncode == 1
    assert "REGRESSED" in regressed.stdout
    other = json.loads(a.read_text())
    other["modelId"] = "someone-else"
    c = project.root / "c.json"
    c.write_text(json.dumps(other))
    refused = compare(a, c)
    assert refused.returncode == 3
    assert "REFUSED  no delta computed: different models" in refused.stderr


def test_the_clean_dirty_rule_on_a_real_repository(tmp_path: Path) -> None:
    assert tree_commit(tmp_path) == "unknown"
    assert not is_clean("unknown")
    (tmp_path / "f").write_text("x")
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(tmp_path, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x")
    clean = tree_commit(tmp_path)
    assert len(clean) == 40 and is_clean(clean)
    (tmp_path / "f").write_text("y")
    assert tree_commit(tmp_path) == f"{clean}-dirty"
    assert not is_clean(f"{clean}-dirty")


def _comparable(card: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (t["caseId"], t["trial"], t["outcome"], t.get("output"), json.dumps(t.get("expectations")))
        for t in card["trials"]
    ]


def test_a_killed_sweep_resumes_to_the_same_scorecard(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from synthetic import make_corpus

    corpus = make_corpus(tmp_path / "corpus", 4000)
    log = tmp_path / "trials.jsonl"
    command = [sys.executable, "-m", "eval_cli", "sweep", str(corpus), "--format", "json"]
    full = subprocess.run(
        [*command, "--quiet"], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert full.returncode == 0, full.stderr[-2000:]
    process = subprocess.Popen(
        [*command, "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.exists() and log.read_bytes().count(b"\n") > 300:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    interrupted = json.loads(out)
    assert process.returncode == 1
    assert interrupted["abortedReason"].startswith("interrupted after")
    assert 0 < len(interrupted["trials"]) < 4000
    resumed = subprocess.run(
        [*command, "--quiet", "--resume", str(log)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    card = json.loads(resumed.stdout)
    assert _comparable(card) == _comparable(json.loads(full.stdout))
    assert card["corpusHash"] == json.loads(full.stdout)["corpusHash"]
    assert card["abortedReason"] is None


def test_a_second_corpus_keeps_its_own_baselines(project: Project) -> None:
    """Two Corpora of one project never share a model's Baseline: the project's own keeps
    ``baselines/<model>.json``, another its ``baselines/<corpus>/<model>.json``; a Baseline
    promoted before the key (at the unkeyed path) still compares, with a note."""
    second = project.root / "second"
    shutil.copytree(project.root / "corpus", second)
    (second / f"{CASES[0]}.json").unlink()  # another Corpus: two of the three Cases
    git(project.root, "add", "-A")
    project.commit()

    def sweep(corpus: str, *args: str) -> subprocess.CompletedProcess[str]:
        env = judgeless_env(EVAL_RELEASE_KEY=KEY)
        return eval_in_process("sweep", corpus, "--quiet", "--model", "good", *REAL, *args,
                               cwd=project.root, env=env)  # fmt: skip

    mine = project.root / "baselines" / "good.json"
    theirs = project.root / "baselines" / "second" / "good.json"
    assert sweep("corpus", "--promote").returncode == 0
    ours = mine.read_bytes()
    promoted = sweep("second", "--promote")
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr
    assert "-> baselines/second/good.json" in promoted.stdout
    assert mine.read_bytes() == ours  # the project's own Baseline untouched
    project.commit()
    assert "3 passed before, 3 passed after" in sweep("corpus", "--baseline").stdout
    compared = sweep("second", "--baseline")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "2 passed before, 2 passed after" in compared.stdout

    theirs.rename(mine)  # as a harness before the key promoted it, over the project's
    project.commit()
    old = sweep("second", "--baseline")
    assert old.returncode == 0, old.stdout + old.stderr
    assert "compared with baselines/good.json" in old.stdout
    assert "2 passed before, 2 passed after" in old.stdout
    refused = sweep("corpus", "--baseline")  # the project's Corpus meets the other's Baseline
    assert refused.returncode == 3
    assert "REFUSED  no delta computed: different Corpora" in refused.stdout
