"""The project's settings: found upwards as pytest finds its rootdir, never above the git
repository's root, trusted only from a file the user owns (as git trusts a repository), each
bad key refused naming the file, the key path and the reason; and the provenance of a Sweep
read from the Corpus's tree, the harness's own outputs apart."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._util.project import (
    MAX_SETTINGS_BYTES,
    SAFE_DIRECTORIES,
    SettingsRefused,
    find_project,
)
from eval_core._util.provenance import is_clean, tree_commit
from tests.scratch_git import git

HOST_OPTIONS = frozenset({"app", "request_limit", "timeout"})


def settings_file(directory: Path, table: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "pyproject.toml"
    path.write_text(f'[project]\nname = "team"\n\n[tool.eval]\n{table}\n')
    return path


def test_found_upwards_and_its_paths_resolve_against_its_root(tmp_path: Path) -> None:
    root = tmp_path / "team"
    file = settings_file(
        root,
        'corpus = "evals/corpus"\nhost = "pydantic-ai"\nmodels = "/etc/pins.toml"\n'
        'outputs = "out"\npythonpath = ["src"]',
    )
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    project = find_project(deep)
    assert (project.root, project.file) == (root, file)
    assert project.corpus == root / "evals" / "corpus"
    assert project.models == Path("/etc/pins.toml")  # an absolute path stays as written
    assert project.host == "pydantic-ai"
    assert project.path("outputs") == root / "out"
    assert project.path("baselines") == root / "baselines"  # the default, under the root
    assert project.pythonpath == (root / "src",)


def test_a_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    settings_file(tmp_path, 'corpus = "c"')
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "pkg"\n[tool.ruff]\nline-length = 9\n')
    assert find_project(inner).file == tmp_path / "pyproject.toml"


def test_never_above_the_repository_root(tmp_path: Path) -> None:
    settings_file(tmp_path, 'app = "evil:AGENTS"')  # someone else's tree, above the team's
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git(repo, "init", "-q")
    project = find_project(repo / "sub")
    assert project.file is None
    assert project.root == repo  # no settings: the repository's root holds the outputs
    assert project.path("corpus") == repo / "corpus"


def test_without_settings_or_git_the_root_is_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    project = find_project(tmp_path / "anywhere")
    assert project.file is None and project.root == tmp_path
    assert project.path("corpus") == Path("corpus")  # shown as typed: the root is here


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving a file to another user (os.chown) needs root",
)
def test_a_file_another_user_owns_is_refused_until_marked_safe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    above = tmp_path / "shared"
    file = settings_file(above, 'app = "their.module:AGENTS"')
    os.chown(file, 4242, 4242)
    corpus = above / "team" / "corpus"
    corpus.mkdir(parents=True)
    monkeypatch.delenv(SAFE_DIRECTORIES, raising=False)
    with pytest.raises(SettingsRefused) as refused:
        find_project(corpus)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{file}: tool.eval: owned by uid 4242, not by you (uid 0)")
    assert f"{SAFE_DIRECTORIES}={above.resolve()}" in message
    monkeypatch.setenv(SAFE_DIRECTORIES, os.pathsep.join(["/elsewhere", str(above)]))
    assert find_project(corpus).file == file
    monkeypatch.setenv(SAFE_DIRECTORIES, "*")
    assert find_project(corpus).file == file
    monkeypatch.delenv(SAFE_DIRECTORIES)
    file.write_text("[tool.ruff]\n")  # someone else's file with no settings: passed over
    os.chown(file, 4242, 4242)
    assert find_project(corpus).file is None


@pytest.mark.parametrize(
    ("table", "key", "reason"),
    [
        ("corpus = 3", "tool.eval.corpus", "expected a path (a string), got an integer"),
        ('host = ""', "tool.eval.host", "got an empty string"),
        ("models = [1]", "tool.eval.models", "got an array"),
        ("outputs = true", "tool.eval.outputs", "got a boolean"),
        ("app = 1.5", "tool.eval.app", "expected package.module:NAME (a string), got a float"),
        ("host-options = 2", "tool.eval.host-options", "expected a table of Host options"),
        ('host-options = {"a b" = 1}', "tool.eval.host-options.a b", "not an option name"),
        ('pythonpath = "src"', "tool.eval.pythonpath", "expected a list of folders"),
        ('app = "a:B"\nhost-options = {app = "c:D"}', "tool.eval.host-options.app", "twice"),
    ],
)
def test_a_key_of_the_wrong_type_is_refused_by_its_path(
    tmp_path: Path, table: str, key: str, reason: str
) -> None:
    file = settings_file(tmp_path, table)
    with pytest.raises(SettingsRefused) as refused:
        find_project(tmp_path)
    assert (refused.value.file, refused.value.key) == (file, key)
    assert reason in refused.value.reason


@settings(max_examples=40, deadline=None)
@given(
    key=st.sampled_from(["corpus", "host", "models", "baselines", "outputs", "app"]),
    value=st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.lists(st.integers(0, 9)),
    ),
)
def test_any_value_that_is_not_text_is_refused_for_a_text_key(
    tmp_path_factory: pytest.TempPathFactory, key: str, value: object
) -> None:
    import json

    directory = tmp_path_factory.mktemp("typed")
    settings_file(directory, f"{key} = {json.dumps(value)}")
    with pytest.raises(SettingsRefused) as refused:
        find_project(directory)
    assert refused.value.key == f"tool.eval.{key}"
    assert "(a string), got a" in refused.value.reason


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"[tool.eval\ncorpus = 1\n", "not valid TOML"),
        (b'[tool.eval]\ncorpus = "\xff"\n', "not UTF-8 text"),
        (b"[tool]\neval = 3\n", "expected a table, got an integer"),
        (b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
    ],
)
def test_a_malformed_file_is_refused_naming_it(tmp_path: Path, content: bytes, reason: str) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    with pytest.raises(SettingsRefused, match=reason) as refused:
        find_project(tmp_path)
    assert refused.value.file == tmp_path / "pyproject.toml"


def test_a_file_that_cannot_be_read_safely_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    with (big / "pyproject.toml").open("wb") as out:
        out.truncate(MAX_SETTINGS_BYTES + 1)
    with pytest.raises(SettingsRefused, match="over the limit"):
        find_project(big)
    pipe = tmp_path / "pipe"
    pipe.mkdir()
    os.mkfifo(pipe / "pyproject.toml")
    with pytest.raises(SettingsRefused, match="a named pipe"):
        find_project(pipe)  # never blocks


def test_host_options_come_from_the_table_and_the_keys_the_host_declares(tmp_path: Path) -> None:
    file = settings_file(
        tmp_path,
        'app = "team.agent:AGENTS"\nrequest_limit = 8\n[tool.eval.host-options]\ntimeout = 2.5',
    )
    project = find_project(tmp_path)
    assert project.host_options("pydantic-ai", HOST_OPTIONS) == {
        "app": "team.agent:AGENTS",
        "request_limit": "8",
        "timeout": "2.5",
    }
    with pytest.raises(SettingsRefused) as refused:
        project.host_options("agent-runtime", frozenset())
    assert refused.value.file == file
    assert "the Host 'agent-runtime' takes no option" in refused.value.reason


@pytest.mark.parametrize(
    ("table", "key", "reason"),
    [
        ('corpos = "c"', "tool.eval.corpos", "unknown key (did you mean 'corpus'?)"),
        ("request_limt = 3", "tool.eval.request_limt", "did you mean 'request_limit'?"),
        ("timeout = 1\nhost-options = {timeout = 2}", "tool.eval.timeout", "given twice"),
        ("host-options = {nope = 1}", "tool.eval.host-options.nope", "takes no option 'nope'"),
        ("host-options = {timeout = [1]}", "tool.eval.host-options.timeout", "got an array"),
    ],
)
def test_an_unknown_or_doubled_key_is_refused_with_a_hint(
    tmp_path: Path, table: str, key: str, reason: str
) -> None:
    settings_file(tmp_path, table)
    with pytest.raises(SettingsRefused) as refused:
        find_project(tmp_path).host_options("pydantic-ai", HOST_OPTIONS)
    assert refused.value.key == key
    assert reason in refused.value.reason


def test_the_commit_is_the_corpus_trees_and_the_harness_outputs_are_no_change(
    tmp_path: Path,
) -> None:
    team = tmp_path / "team"
    corpus = team / "evals" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "c.json").write_text("{}")
    assert tree_commit(corpus) == "unknown"
    git(team, "init", "-q")
    git(team, "add", "-A")
    git(team, "commit", "-qm", "corpus")
    head = git(team, "rev-parse", "HEAD")
    outputs = (team / "scorecards", team / "baselines")
    assert tree_commit(corpus, outputs) == head
    (team / "baselines").mkdir()
    (team / "baselines" / "m.json").write_text("{}")  # what a first --promote wrote
    (team / "scorecards" / "trials").mkdir(parents=True)
    (team / "scorecards" / "trials" / "log.jsonl").write_text("{}")
    assert is_clean(tree_commit(corpus, outputs))  # a second --promote is not refused
    assert tree_commit(corpus) == f"{head}-dirty"  # without the exclusion it would be
    outside = tmp_path / "elsewhere"  # an outputs folder outside the tree excludes nothing
    assert tree_commit(corpus, (outside, team)) == f"{head}-dirty"
    (corpus / "c.json").write_text('{"changed": 1}')  # the system under test changed
    assert tree_commit(corpus, outputs) == f"{head}-dirty"
