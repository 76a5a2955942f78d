"""The Soul repository: ``soul_write`` commits an artifact to git; publication makes it active.

A Soul lives in a git repository. The writer puts an Agent at ``agents/<slug>/AGENT.md``, a
Skill at ``skills/<slug>/SKILL.md`` and a Routine at ``routines/<slug>/routine.yaml`` (the paths
the loader reads), or a companion file beside it (``companion``: ``skills/<slug>/LICENSE.txt``),
commits it, then publishes:
the committed tree is checked out into a bundle directory and loaded with the real loader; only
a bundle that loads becomes the active publication, which is what the next Turn's loader reads.
A commit that does not load stays in history but is never published.
"""

from __future__ import annotations

import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from agent_runtime.model import ToolCallRequest
from agent_runtime.soul import files as soul_files
from agent_runtime.soul.loader import Soul, SoulError, load_soul
from agent_runtime.tools import ToolOutcome

if TYPE_CHECKING:
    import pygit2

_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}\Z")
_COMPANION_DEPTH = 4
_WRITER = ("soul-writer", "soul-writer@localhost")
_MAIN = "refs/heads/main"
KINDS = {
    "Agent": ("agents", "AGENT.md"),
    "Skill": ("skills", "SKILL.md"),
    "Routine": ("routines", "routine.yaml"),
    "SurfaceComponent": ("surface-components", "component.yaml"),
}
CONFLICT = "CONFLICT"


VALIDATION_FAILED = "VALIDATION_FAILED"
FORBIDDEN = "FORBIDDEN"


class SoulWriteRefusedError(Exception):
    """The write is not allowed (bad kind or slug, a stale base, an agent rewriting itself).

    ``code`` and the ``issues`` (``<issue> at <path>``) make the original's refusal reason:
    ``<code>: <message> — <issue> at <path>; ...``."""

    def __init__(
        self,
        reason: str,
        *,
        denied: bool = False,
        code: str = VALIDATION_FAILED,
        issues: tuple[str, ...] = (),
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.denied = denied
        self.code = code
        self.issues = issues

    def denial(self) -> str:
        """The refusal as the model is told it, in the original's form."""
        if self.reason.startswith(f"{self.code}: "):
            head = self.reason
        else:
            head = f"{self.code}: {self.reason}"
        return f"{head} — {'; '.join(self.issues)}" if self.issues else head


def default_subject(kind: str, slug: str) -> str:
    """The commit subject of a ``soul_write`` that names none (the original's)."""
    return f"soul: update {kind} {slug}"


class Commit(msgspec.Struct, frozen=True):
    """A write's commit; no ``paths`` when the artifact already held the content (``sha`` is
    then the head it stands at: nothing was committed)."""

    sha: str
    paths: tuple[str, ...]


def _holds(file: Path, content: str) -> bool:
    """Whether ``file`` already holds ``content`` (read as the loader reads a Soul file)."""
    try:
        return file.is_file() and soul_files.read_text(file) == content
    except (soul_files.SoulFileError, OSError):
        return False


class Publication(msgspec.Struct, frozen=True):
    commit: str
    bundle: Path
    artifacts: tuple[str, ...]


_BUNDLES: dict[str, Soul] = {}
_KEPT = 32


def load_bundle(bundle: Path | str) -> Soul:
    """The Soul of a published bundle. A bundle never changes once checked out (its directory
    is named by its commit), so each is parsed once per process, not on every Turn that reads
    the active publication; the last few dozen are kept."""
    key = str(bundle)
    soul = _BUNDLES.get(key)
    if soul is None:
        soul = load_soul(Path(key))
        if len(_BUNDLES) >= _KEPT:
            _BUNDLES.pop(next(iter(_BUNDLES)), None)
        _BUNDLES[key] = soul
    return soul


def companion_path(kind: str, slug: str, companion: str) -> str:
    """Where a companion file lives: beside the definition, in the artifact's own directory
    (``skills/<slug>/LICENSE.txt``, ``skills/<slug>/references/notes.md``; the definition's
    own name, ``SKILL.md``, is the definition); a path that would leave it is refused."""
    folder = KINDS[kind][0]
    parts = companion.split("/")
    if len(parts) > _COMPANION_DEPTH or not all(
        _SEGMENT.match(p) and p not in (".", "..") for p in parts
    ):
        raise SoulWriteRefusedError(
            f"companion {companion!r} is not a relative path beside the definition",
            issues=(f"invalid_companion at {folder}/{slug}/{companion}",),
        )
    return f"{folder}/{slug}/{companion}"


def artifact_path(kind: str, slug: str) -> str:
    """Where an artifact lives in the repository: the loader's own layout."""
    folder, filename = KINDS[kind]
    return f"{folder}/{slug}/{filename}"


def artifacts_of(soul: Soul) -> tuple[str, ...]:
    """The artifacts a loaded Soul holds, as ``Kind:slug``."""
    return tuple(
        sorted(
            [f"Agent:{s}" for s in soul.agents]
            + [f"Skill:{s}" for s in soul.skills]
            + [f"Routine:{s}" for s in soul.routines]
        )
    )


class SoulRepo:
    """A Soul in a git working copy, with its bundles (published trees) beside it.

    git is driven in this process through libgit2 (pygit2): a ``soul_write`` is an add, a
    commit, a checkout of the bundle, a read of the log and a reset, and a process for each
    was most of a durable Trial's cost. What lands on disk is a plain git repository, which
    ``git`` itself reads (the tests do). libgit2 does not share one repository object across
    threads safely, so each of its calls here holds the copy's own lock."""

    __slots__ = ("_git", "_loose", "_repo", "_written", "base", "bundles", "root")

    def __init__(self, source: Path, workdir: Path) -> None:
        """Copy ``source`` into ``workdir/repo`` and commit it as the base."""
        self.root = workdir / "repo"
        self.bundles = workdir / "bundles"
        shutil.copytree(source, self.root)
        self.bundles.mkdir(parents=True, exist_ok=True)
        import pygit2  # here, not at the top: a Sweep that writes no Soul never loads it

        self._git = threading.Lock()
        self._repo = pygit2.init_repository(str(self.root), initial_head="main")
        config = self._repo.config
        config["core.autocrlf"] = "false"  # the bytes written are the bytes committed
        config["core.filemode"] = "true"
        index = self._repo.index
        index.add_all()  # as ``git add -A``: what .gitignore names stays out
        index.write()
        self.base = self._commit("Eval Soul", index.write_tree(), [])
        self._written = False
        self._loose: str | None = None

    def copy(self, workdir: Path) -> SoulRepo:
        """Another working copy of this repository as it is now (unwritten: at its base), in
        ``workdir``: the same commits, copied with git's own files rather than made again (so
        the base is the same commit), and its own index, working copy and bundles, so that two
        writers never share one."""
        if self._written:
            raise RuntimeError("only an unwritten Soul repository is copied")
        copied = object.__new__(SoulRepo)
        copied.root = workdir / "repo"
        copied.bundles = workdir / "bundles"
        shutil.copytree(self.root, copied.root, symlinks=True)
        copied.bundles.mkdir(parents=True, exist_ok=True)
        import pygit2

        copied._git = threading.Lock()
        copied._repo = pygit2.Repository(str(copied.root))
        copied.base = self.base
        copied._written = False
        copied._loose = None
        return copied

    def _commit(self, message: str, tree: pygit2.Oid, parents: list[pygit2.Oid | str]) -> str:
        """A commit of ``tree`` on ``main``, its message cleaned as ``git commit -m`` cleans
        one; a message that cleans to nothing is refused, as git refuses it."""
        import pygit2

        cleaned = _cleaned(message)
        if not cleaned:
            raise RuntimeError("git commit failed: Aborting commit due to empty commit message.")
        writer = pygit2.Signature(*_WRITER)
        return str(self._repo.create_commit(_MAIN, writer, writer, cleaned, tree, parents))

    def head(self) -> str:
        """The commit ``main`` points at."""
        with self._git:
            return str(self._repo.head.target)

    def write(
        self,
        kind: str,
        slug: str,
        content: str,
        subject: str | None = None,
        expected_base: str | None = None,
        companion: str | None = None,
    ) -> Commit:
        """Write and commit one artifact where the loader reads it (with ``companion``: that
        file beside its definition instead); ``subject`` is the commit message,
        ``expected_base`` the head the writer saw (a moved head is a conflict)."""
        if kind not in KINDS:
            raise SoulWriteRefusedError(
                f"kind must be one of {', '.join(KINDS)}, got {kind!r}",
                issues=("unknown_kind at kind",),
            )
        if not isinstance(slug, str) or not _SLUG.match(slug):
            raise SoulWriteRefusedError(
                f"slug {slug!r} is not a lowercase-hyphenated slug",
                issues=(f"invalid_slug at {KINDS[kind][0]}/{slug}",),
            )
        if companion is not None:
            path = companion_path(kind, slug, companion)
        else:
            path = artifact_path(kind, slug)
        if not isinstance(content, str) or not content.strip():
            raise SoulWriteRefusedError(
                "content must be non-empty", issues=(f"empty_content at {path}",)
            )
        if expected_base is not None and (head := self.head()) != expected_base:
            raise SoulWriteRefusedError(
                f"{CONFLICT}: the Soul moved from {expected_base[:12]} to {head[:12]} since "
                "the writer read it",
                denied=True,
                code=CONFLICT,
                issues=(f"stale_base at {path}",),
            )
        target = self.root / path
        if _holds(target, content):  # git would have nothing to commit: the head stands
            return Commit(self.head(), ())
        repo = self._repo
        with self._git:
            ignored = repo.path_is_ignored(path)
        if ignored:  # git cannot hold it (a .gitignore rule, or a '.' or '..' segment): the
            # writer is told, and nothing is written
            raise SoulWriteRefusedError(
                f"{path} is a path git ignores: the Soul cannot hold it",
                issues=(f"ignored_path at {path}",),
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        self._written, self._loose = True, path  # a file git may not hold until committed
        target.write_text(content, encoding="utf-8")
        with self._git:
            index = repo.index
            index.read()
            index.add(path)
            index.write()
            parent = repo.head.target
            sha = self._commit(subject or f"soul_write {kind}:{slug}", index.write_tree(), [parent])
        self._loose = None
        return Commit(sha, (path,))

    def bundle(self, commit: str) -> Path:
        """The tree of ``commit`` checked out on its own (what a publication serves), the
        repository's index and working copy left as they are."""
        import pygit2
        from pygit2.enums import CheckoutStrategy

        target = self.bundles / commit
        if not target.is_dir():
            target.mkdir(parents=True)
            try:
                with self._git:
                    self._repo.checkout_tree(  # type: ignore[no-untyped-call]
                        self._repo[commit].peel(pygit2.Tree),
                        directory=str(target),
                        strategy=CheckoutStrategy.FORCE | CheckoutStrategy.DONT_UPDATE_INDEX,
                    )
            except BaseException:
                shutil.rmtree(target, ignore_errors=True)
                raise
        return target

    def publish(self, commit: str) -> Publication:
        """Load the committed tree with the real loader; raises ``SoulError`` if it does not."""
        bundle = self.bundle(commit)
        soul = load_bundle(bundle)
        return Publication(commit, bundle, artifacts_of(soul))

    def log(self, since: str, until: str) -> list[tuple[str, tuple[str, ...]]]:
        """Commits after ``since`` up to ``until``, oldest first, with the paths each touched."""
        return [(sha, paths) for sha, _subject, paths in self.history(since, until)]

    def history(self, since: str, until: str) -> list[tuple[str, str, tuple[str, ...]]]:
        """Commits after ``since`` up to ``until``, oldest first: each one's sha, subject line
        (as ``git log --format=%s`` gives it) and the paths it touched."""
        with self._git:
            return self._history(since, until)

    def _history(self, since: str, until: str) -> list[tuple[str, str, tuple[str, ...]]]:
        import pygit2
        from pygit2.enums import SortMode

        walker = self._repo.walk(pygit2.Oid(hex=until), SortMode.TOPOLOGICAL | SortMode.REVERSE)
        walker.hide(pygit2.Oid(hex=since))
        commits: list[tuple[str, str, tuple[str, ...]]] = []
        for commit in walker:
            # ``since`` is an ancestor (the base or an earlier head), and a writer commits on a
            # line: every commit listed has one parent
            changed = commit.parents[0].tree.diff_to_tree(commit.tree)
            paths = tuple(sorted({str(delta.new_file.path) for delta in changed.deltas}))
            commits.append((str(commit.id), _subject(commit.message), paths))
        return commits

    def changed(self) -> bool:
        """Whether anything was written since the base (known without asking git)."""
        return self._written

    def reset(self) -> None:
        """Back to the base commit, the bundles of later commits removed. Every file a write
        committed is git's to remove (a hard reset); a file a write left uncommitted (git
        refused it) is removed too, with the directories it made (as ``git clean`` would)."""
        import pygit2
        from pygit2.enums import ResetMode

        with self._git:
            self._repo.reset(pygit2.Oid(hex=self.base), ResetMode.HARD)
            loose = self._loose
            if loose is not None and loose not in self._repo.index:
                _remove(self.root, loose)
        self._written, self._loose = False, None
        for entry in self.bundles.iterdir():
            if entry.name != self.base:
                shutil.rmtree(entry)


def _cleaned(message: str) -> str:
    """``message`` as ``git commit -m`` keeps it: each line's trailing space dropped, blank
    lines at either end dropped and runs of them made one, ended by a newline."""
    lines = [line.rstrip() for line in message.splitlines()]
    kept: list[str] = []
    for line in lines:
        if line or (kept and kept[-1]):
            kept.append(line)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept) + "\n" if kept else ""


def _subject(message: str) -> str:
    """A commit message's subject as ``git log --format=%s`` prints it: its first paragraph,
    lines joined by spaces."""
    paragraph = message.strip("\n").split("\n\n", 1)[0]
    return " ".join(paragraph.splitlines())


def _remove(root: Path, path: str) -> None:
    """Remove ``root/path`` and each directory above it that it leaves empty."""
    target = root / path
    target.unlink(missing_ok=True)
    for directory in target.parents:
        if directory == root:
            break
        try:
            directory.rmdir()
        except OSError:  # not empty: something git holds is in it
            break


PublishedHook = Callable[[Commit, "Publication | None", str | None], None]


class SoulWriter:
    """The real ``soul_write`` Tool: write, commit, publish; each outcome as the model sees it.

    An agent may not rewrite its own definition (a denial); a malformed artifact is committed
    but not published (a failure naming the loader's problem).
    """

    __slots__ = ("agent", "on_commit", "repo")

    def __init__(self, repo: SoulRepo, agent: str, on_commit: PublishedHook) -> None:
        self.repo = repo
        self.agent = agent
        self.on_commit = on_commit

    def execute(self, call: ToolCallRequest) -> ToolOutcome:
        args: Any = call.arguments if isinstance(call.arguments, dict) else {}
        kind, slug, content = args.get("kind"), args.get("slug"), args.get("content")
        if kind == "Agent" and slug == self.agent:
            refused = SoulWriteRefusedError(
                f"agent {self.agent} may not rewrite its own definition",
                code=FORBIDDEN,
                issues=(f"self_rewrite at {artifact_path('Agent', self.agent)}",),
            )
            return ToolOutcome("denied", reason=refused.denial())
        subject = args.get("subject")
        base = args.get("expectedBaseCommit")
        companion = args.get("companion")
        try:
            commit = self.repo.write(
                str(kind),
                str(slug),
                content,
                subject=subject  # a blank subject is none: git would refuse to commit it
                if isinstance(subject, str) and subject.strip()
                else default_subject(str(kind), str(slug)),
                expected_base=base if isinstance(base, str) else None,
                companion=companion if isinstance(companion, str) and companion else None,
            )
        except SoulWriteRefusedError as refused:
            return ToolOutcome("denied", reason=refused.denial())
        artifact = f"{kind}:{slug}"
        if not commit.paths:  # it already holds this content: nothing committed, nothing new
            output = {"commit": commit.sha, "paths": [], "unchanged": True, "artifact": artifact}
            return ToolOutcome("succeeded", output=output)
        written = {"commit": commit.sha, "paths": list(commit.paths), "path": commit.paths[0]}
        try:
            publication = self.repo.publish(commit.sha)
        except SoulError as error:
            self.on_commit(commit, None, error.problem)
            return ToolOutcome(
                "failed",
                output={**written, "published": False},
                reason=f"committed {artifact} but not published: {error.problem}",
            )
        self.on_commit(commit, publication, None)
        return ToolOutcome("succeeded", output={**written, "published": True, "artifact": artifact})
