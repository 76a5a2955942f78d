"""The git-backed Soul writer and publication, on a real git repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_runtime.model import ToolCallRequest
from agent_runtime.soul.loader import load_soul
from agent_runtime.soul.repo import Commit, Publication, SoulRepo, SoulWriter, SoulWriteRefusedError

SKILL = "---\nname: Bulb storage\ndescription: Keeping bulbs.\n---\nKeep bulbs dry.\n"


@pytest.fixture
def repo(tmp_path: Path, soul_copy: Path) -> SoulRepo:
    return SoulRepo(soul_copy, tmp_path / "work")


def writer(repo: SoulRepo, log: list[tuple[str, bool]]) -> SoulWriter:
    def record(commit: Commit, publication: Publication | None, _why: str | None) -> None:
        log.append((commit.paths[0], publication is not None))

    return SoulWriter(repo, "soul-author", record)


def call(kind: str, slug: str, content: str) -> ToolCallRequest:
    return ToolCallRequest("c1", "soul_write", {"kind": kind, "slug": slug, "content": content})


def _status(root: Path, *flags: str) -> str:
    """``git status --porcelain`` of a working copy: empty when index and files are as
    committed (``--ignored``: and no ignored file lies about)."""
    return subprocess.run(
        ["git", "status", "--porcelain", *flags],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_written_skill_is_committed_where_the_loader_reads_and_published(
    repo: SoulRepo,
) -> None:
    log: list[tuple[str, bool]] = []
    outcome = writer(repo, log).execute(call("Skill", "bulb-storage", SKILL))
    assert outcome.status == "succeeded"
    assert log == [("skills/bulb-storage/SKILL.md", True)]
    [(sha, paths)] = repo.log(repo.base, repo.head())
    assert paths == ("skills/bulb-storage/SKILL.md",)
    published = repo.publish(sha)
    assert "Skill:bulb-storage" in published.artifacts
    assert load_soul(published.bundle).skills["bulb-storage"].name == "Bulb storage"


def test_a_write_of_a_kind_the_soul_has_no_folder_for_is_refused_and_commits_nothing(
    repo: SoulRepo,
) -> None:
    """The schema's enum refuses an unknown kind on the loop's path; the writer refuses it too,
    as a denial naming the kind, for a caller that runs the Tool without the schema."""
    log: list[tuple[str, bool]] = []
    head = repo.head()
    outcome = writer(repo, log).execute(call("Widget", "bulb-storage", SKILL))
    assert outcome.status == "denied"
    assert outcome.reason is not None and outcome.reason.endswith("— unknown_kind at kind")
    assert "got 'Widget'" in outcome.reason
    assert (repo.head(), log) == (head, [])


def test_history_gives_each_commit_its_subject_and_paths_oldest_first(repo: SoulRepo) -> None:
    first = repo.write("Skill", "bulb-storage", SKILL, subject='feat: bulbs  "stored" @ 5°C')
    second = repo.write("Skill", "bulb-storage", SKILL + "\nMore.\n")
    assert repo.history(repo.base, repo.head()) == [
        (first.sha, 'feat: bulbs  "stored" @ 5°C', ("skills/bulb-storage/SKILL.md",)),
        (second.sha, "soul_write Skill:bulb-storage", ("skills/bulb-storage/SKILL.md",)),
    ]
    assert repo.log(repo.base, repo.head()) == [
        (sha, paths) for sha, _subject, paths in repo.history(repo.base, repo.head())
    ]
    assert repo.history(repo.head(), repo.head()) == []


def test_writing_what_an_artifact_already_holds_commits_nothing_and_says_so(
    repo: SoulRepo,
) -> None:
    """git has nothing to commit: the Tool answers with the head it stands at (it raised out of
    the Turn before), and the writer is told nothing changed."""
    log: list[tuple[str, bool]] = []
    assert writer(repo, log).execute(call("Skill", "bulb-storage", SKILL)).status == "succeeded"
    head = repo.head()
    again = writer(repo, log).execute(call("Skill", "bulb-storage", SKILL))
    assert (again.status, again.output) == (
        "succeeded",
        {"commit": head, "paths": [], "unchanged": True, "artifact": "Skill:bulb-storage"},
    )
    assert repo.head() == head and len(log) == 1 and _status(repo.root) == ""


def test_a_malformed_artifact_is_committed_but_not_published(repo: SoulRepo) -> None:
    log: list[tuple[str, bool]] = []
    outcome = writer(repo, log).execute(call("Skill", "bulb-storage", "no front matter"))
    assert outcome.status == "failed"
    assert outcome.reason is not None and "not published" in outcome.reason
    assert log == [("skills/bulb-storage/SKILL.md", False)]


def test_an_agent_may_not_rewrite_itself_and_bad_slugs_are_denied(repo: SoulRepo) -> None:
    log: list[tuple[str, bool]] = []
    w = writer(repo, log)
    own = w.execute(call("Agent", "soul-author", SKILL))
    assert (own.status, own.reason) == (
        "denied",
        "FORBIDDEN: agent soul-author may not rewrite its own definition — "
        "self_rewrite at agents/soul-author/AGENT.md",
    )
    slug = w.execute(call("Skill", "Bad Slug", SKILL))
    assert (slug.status, slug.reason) == (
        "denied",
        "VALIDATION_FAILED: slug 'Bad Slug' is not a lowercase-hyphenated slug — "
        "invalid_slug at skills/Bad Slug",
    )
    newline = w.execute(call("Skill", "bulb-storage\n", SKILL))  # `$` matched before a "\n"
    assert newline.status == "denied" and "invalid_slug" in (newline.reason or "")
    kind = w.execute(call("Guardrail", "x", SKILL))
    assert kind.status == "denied"
    assert kind.reason is not None and kind.reason.startswith("VALIDATION_FAILED: kind must be")
    assert log == [] and not repo.changed()


def test_reset_returns_to_the_base_and_drops_later_bundles(repo: SoulRepo) -> None:
    writer(repo, []).execute(call("Skill", "bulb-storage", SKILL))
    assert repo.changed()
    repo.reset()
    assert not repo.changed()
    assert not (repo.root / "skills" / "bulb-storage").exists()
    assert [p.name for p in repo.bundles.iterdir()] == []


def test_a_bundle_is_its_commits_tree_alone_and_the_repository_is_left_as_it_was(
    repo: SoulRepo,
) -> None:
    base = repo.base
    before = (repo.root / "skills" / "ticket-hygiene" / "SKILL.md").read_text()
    w = writer(repo, [])
    w.execute(call("Skill", "ticket-hygiene", SKILL))  # a file the base commit has, changed
    w.execute(call("Skill", "bulb-storage", SKILL))  # and one it has not
    head = repo.head()
    old = repo.bundle(base)
    assert (old / "skills" / "ticket-hygiene" / "SKILL.md").read_text() == before
    assert not (old / "skills" / "bulb-storage").exists()  # the tree of that commit only
    assert (
        _status(repo.root) == "" and repo.head() == head
    )  # index, working copy and HEAD as they were
    assert not (repo.root.parent / "bundle.index").exists()
    new = repo.bundle(head)
    assert (new / "skills" / "ticket-hygiene" / "SKILL.md").read_text() == SKILL


def test_a_copy_has_the_same_base_and_its_writes_are_its_own(
    repo: SoulRepo, tmp_path: Path
) -> None:
    first, second = repo.copy(tmp_path / "one"), repo.copy(tmp_path / "two")
    assert first.base == second.base == repo.base == first.head()
    writer(first, []).execute(call("Skill", "bulb-storage", SKILL))
    writer(second, []).execute(call("Skill", "tulip-storage", SKILL))
    assert not (repo.root / "skills" / "bulb-storage").exists() and repo.head() == repo.base
    assert not (second.root / "skills" / "bulb-storage").exists()
    assert [paths for _, paths in first.log(first.base, first.head())] == [
        ("skills/bulb-storage/SKILL.md",)
    ]
    first.reset()
    assert first.head() == first.base and not (first.root / "skills" / "bulb-storage").exists()
    with pytest.raises(RuntimeError, match="unwritten"):
        second.copy(tmp_path / "three")


def test_a_write_to_a_path_git_ignores_is_refused_and_writes_nothing(
    tmp_path: Path, soul_copy: Path
) -> None:
    """The writer is told (a refusal, not a crash of its Turn) and the working copy is as it
    was: a path a .gitignore rule names, or one git never holds ('.' or '..' segments)."""
    (soul_copy / ".gitignore").write_text("skills/ignored-*\n")
    repo = SoulRepo(soul_copy, tmp_path / "work")
    with pytest.raises(SoulWriteRefusedError) as refused:
        repo.write("Skill", "ignored-notes", SKILL)
    assert refused.value.issues == ("ignored_path at skills/ignored-notes/SKILL.md",)
    assert "a path git ignores" in refused.value.denial()
    assert not (repo.root / "skills" / "ignored-notes").exists()
    assert _status(repo.root, "--ignored") == "" and repo.head() == repo.base


def test_a_copy_keeps_its_bundles_beside_its_working_copy(tmp_path: Path, soul_copy: Path) -> None:
    """A lent copy is what a Trial's ``soul_write`` writes to: its published bundles live beside
    its working copy, never in it, so the copy's git status stays clean and a reset after a
    refused write (``clean -fdx``) keeps the bundles it serves."""
    (soul_copy / ".gitignore").write_text("skills/ignored-*\n")
    copy = SoulRepo(soul_copy, tmp_path / "work").copy(tmp_path / "writer-1")
    log: list[tuple[str, bool]] = []
    writer(copy, log).execute(call("Skill", "bulb-storage", SKILL))
    assert log == [("skills/bulb-storage/SKILL.md", True)]
    assert _status(copy.root, "--ignored") == ""
    with pytest.raises(SoulWriteRefusedError, match="a path git ignores"):
        copy.write("Skill", "ignored-notes", SKILL)
    copy.reset()
    assert copy.head() == copy.base and copy.bundles.is_dir()
    assert load_soul(copy.bundle(copy.base)).skills.keys() == load_soul(soul_copy).skills.keys()


def test_a_copy_whose_only_write_git_refused_to_commit_resets_to_its_base(
    repo: SoulRepo, tmp_path: Path
) -> None:
    """A lent copy that published nothing (its one write's commit refused: a subject that
    cleans to nothing, as ``git commit`` refuses it) is still reset to its base, the file it
    left removed, and can be lent again."""
    copy = repo.copy(tmp_path / "writer-1")
    with pytest.raises(RuntimeError, match="empty commit message"):
        copy.write("Skill", "bulb-storage", SKILL, subject=" \n\t\n")
    assert copy.changed()
    copy.reset()
    assert not copy.changed() and copy.head() == copy.base
    assert not (copy.root / "skills" / "bulb-storage").exists()
    assert copy.bundles.is_dir()


@pytest.mark.parametrize(
    "subject",
    [
        "plain",
        "  indented first line \n second line\t\n\n a body paragraph  \n",
        "\n\nlate\n\n",
        "#5 and ü",
    ],
)
def test_a_commits_message_and_subject_are_what_git_makes_of_them(
    tmp_path: Path, soul_copy: Path, subject: str
) -> None:
    """The commit is made in this process (libgit2): its message is cleaned as ``git commit
    -m`` cleans one, and the subject read back is what ``git log --format=%s`` prints."""
    repo = SoulRepo(soul_copy, tmp_path / "work")
    repo.write("Skill", "bulb-storage", SKILL, subject=subject)
    [(_, read, _)] = repo.history(repo.base, repo.head())
    assert read == _git_log(repo.root, "%s")
    witness = tmp_path / "witness"
    subprocess.run(["git", "init", "-q", str(witness)], check=True)
    subprocess.run(
        ["git", "-C", str(witness), "-c", "user.name=w", "-c", "user.email=w@x", "commit",
         "--allow-empty", "-q", "-m", subject],
        check=True,
    )  # fmt: skip
    assert _git_log(repo.root, "%B") == _git_log(witness, "%B")


def _git_log(root: Path, form: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "log", "-1", f"--format={form}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.removesuffix("\n")
