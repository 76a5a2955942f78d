"""A team's project, as its users run ``eval`` there (the real command line, in temporary git
repositories, from a folder inside them): ``[tool.eval]`` found upwards, flags winning over it,
a file above the repository or owned by someone else never trusted, every output under the
project's root, and ``--promote`` recording the Corpus's own commit, twice in a row. What a
command finds and says is tested, not the process: ``eval`` runs in this process
(``eval_in_process``), in the folder and under the environment the test gives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, ScriptedVendor, eval_in_process, judgeless_env, loopback_models
from tests.scratch_git import git

CASE = "finance-refund-is-blocklisted"
KEY = "sk-settings-test-0123456789"
REAL = ("--model", "good", "--max-tokens", "1000000", "--quiet")


def corpus_at(corpus: Path) -> dict[str, object]:
    """A locked Corpus of one shipped Case at ``corpus``; the Case, for a scripted vendor."""
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    shutil.copy(ROOT / "corpus" / "eval.lock", corpus / "eval.lock")
    case: dict[str, object] = json.loads((ROOT / "corpus" / f"{CASE}.json").read_text())
    (corpus / f"{CASE}.json").write_text(json.dumps(case, indent=2))
    return case


class Team:
    """The team's repository: ``[tool.eval]`` at its root, the Corpus in ``evals/``, no
    ``.gitignore`` (the harness's outputs must not dirty it all the same)."""

    def __init__(self, root: Path, table: str = "") -> None:
        self.root = root
        self.case = corpus_at(root / "evals")
        (root / "pyproject.toml").write_text(
            f'[project]\nname = "team"\n\n[tool.eval]\ncorpus = "evals"\n{table}\n'
        )
        (root / "src" / "deep").mkdir(parents=True)
        git(root, "init", "-q")
        self.commit()

    def commit(self) -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", "x")
        return git(self.root, "rev-parse", "HEAD")

    def eval(self, *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = judgeless_env(EVAL_RELEASE_KEY=KEY)
        env.pop("EVAL_SAFE_DIRECTORIES", None)
        return eval_in_process(*args, cwd=cwd or self.root / "src" / "deep", env=env)


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return Team(tmp_path / "team", 'outputs = "eval-out"')


def test_settings_are_found_upwards_and_the_outputs_land_under_the_root(team: Team) -> None:
    checked = team.eval("check")  # from src/deep: the Corpus is [tool.eval]'s, at the root
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("1 Cases")
    swept = team.eval("sweep", "--quiet")
    assert swept.returncode == 0, swept.stdout + swept.stderr
    logs = list((team.root / "eval-out" / "trials").glob("capability-scripted-*.jsonl"))
    assert len(logs) == 1, swept.stderr
    header = json.loads(logs[0].read_text().splitlines()[0])
    assert header["corpusCommit"] == git(team.root, "rev-parse", "HEAD")  # outputs: no change
    assert not (team.root / "src" / "deep" / "scorecards").exists()
    assert not (team.root / "scorecards").exists()  # outputs = "eval-out" was followed


def test_flags_win_over_the_settings(team: Team, tmp_path: Path) -> None:
    other = tmp_path / "other"
    corpus_at(other)
    (other / "two.json").write_text((other / f"{CASE}.json").read_text().replace(CASE, "two"))
    checked = team.eval("check", other)  # the Corpus named wins over corpus = "evals"
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("2 Cases")
    with_host = team.eval("check", "--host", "no-such-host")
    assert with_host.returncode == 2
    assert "unknown Host 'no-such-host'" in with_host.stderr
    text = (team.root / "pyproject.toml").read_text()
    (team.root / "pyproject.toml").write_text(text + 'host = "settings-host"\n')
    from_settings = team.eval("check")
    assert "unknown Host 'settings-host'" in from_settings.stderr  # settings over the default
    assert team.eval("check", "--host", "agent-runtime").returncode == 0


def test_a_settings_file_above_the_repository_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.eval]\ncorpus = "nowhere"\nhost = "evil"\n')
    repo = tmp_path / "repo"
    corpus_at(repo / "corpus")
    (repo / "sub").mkdir()
    git(repo, "init", "-q")
    checked = eval_in_process("check", cwd=repo / "sub", env=judgeless_env())
    assert checked.returncode == 0, checked.stderr  # repo/corpus, the default at its root
    assert checked.stdout.startswith("1 Cases")


def test_a_malformed_or_mistyped_setting_is_one_line_naming_file_and_key(team: Team) -> None:
    file = team.root / "pyproject.toml"
    file.write_text("[tool.eval]\ncorpus = 3\n")
    refused = team.eval("sweep")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        f"settings refused: {file}: tool.eval.corpus: expected a path (a string), got an integer\n"
    )
    file.write_text('[tool.eval]\ncorpus = "evals"\ncorpos = "x"\n')
    refused = team.eval("check")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert "tool.eval.corpos: unknown key (did you mean 'corpus'?)" in refused.stderr
    file.write_text("[tool.eval\n")
    refused = team.eval("hash")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith(f"settings refused: {file}: $: not valid TOML")


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving a file to another user (os.chown) needs root",
)
def test_a_settings_file_another_user_owns_is_refused(team: Team) -> None:
    file = team.root / "pyproject.toml"
    os.chown(file, 4242, 4242)
    refused = team.eval("sweep")
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1, refused.stderr
    assert f"{file}: tool.eval: owned by uid 4242, not by you" in refused.stderr
    assert f"EVAL_SAFE_DIRECTORIES={team.root}" in refused.stderr
    env = {**judgeless_env(), "EVAL_SAFE_DIRECTORIES": str(team.root)}
    trusted = eval_in_process("check", cwd=team.root, env=env)
    assert trusted.returncode == 0, trusted.stderr


@pytest.fixture
def vendor(team: Team) -> Iterator[ScriptedVendor]:
    served = ScriptedVendor([team.case])
    loopback_models(team.root / "models.toml", "EVAL_RELEASE_KEY", good=served.url)
    team.commit()
    yield served
    served.close()


def test_promote_records_the_corpus_commit_and_a_second_promote_is_not_refused(
    team: Team, vendor: ScriptedVendor, tmp_path: Path
) -> None:
    head = git(team.root, "rev-parse", "HEAD")
    first = team.eval("sweep", *REAL, "--promote", "--format", "json")
    assert first.returncode == 0, first.stdout + first.stderr
    card = json.loads(first.stdout)
    assert card["corpusCommit"] == head
    assert card["harness"]["eval-core"] == _version("eval-core")
    assert card["harness"]["eval-host-agent-runtime"] == _version("eval-host-agent-runtime")
    baseline = team.root / "baselines" / "good.json"  # under the root, not src/deep
    stored = json.loads(baseline.read_text())
    assert (stored["schemaVersion"], stored["corpusCommit"]) == (3, head)
    assert "harnessVersion" not in stored
    assert git(team.root, "status", "--porcelain")  # untracked outputs, no .gitignore
    elsewhere = tmp_path / "elsewhere"  # neither the team's tree nor the harness's checkout
    elsewhere.mkdir()
    second = team.eval("sweep", team.root / "evals", *REAL, "--promote", cwd=elsewhere)
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"Baseline at {head} -> {baseline}" in second.stdout
    assert not (elsewhere / "baselines").exists() and not (elsewhere / "scorecards").exists()
    (team.root / "evals" / "soul" / "notes.md").write_text("uncommitted\n")
    dirty = team.eval("sweep", *REAL, "--promote")  # the system under test changed
    assert dirty.returncode == 1
    assert f"the tree is not clean (the Corpus's, {head}-dirty)" in dirty.stdout


def test_an_old_baseline_still_compares(team: Team, vendor: ScriptedVendor) -> None:
    first = team.eval("sweep", *REAL, "--promote")
    assert first.returncode == 0, first.stdout + first.stderr
    baseline = team.root / "baselines" / "good.json"
    stored = json.loads(baseline.read_text())
    commit = stored.pop("corpusCommit")
    old = {"schemaVersion": 2, "harnessVersion": commit, **stored}
    old["schemaVersion"] = 2
    baseline.write_text(json.dumps(old))  # a Baseline a harness before corpusCommit wrote
    again = team.eval("sweep", *REAL, "--baseline")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "REFUSED" not in again.stdout
    compared = team.eval("compare", baseline, baseline, cwd=team.root)
    assert compared.returncode == 0, compared.stderr


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)
