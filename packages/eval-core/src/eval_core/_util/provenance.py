"""Where a result came from: the commit of the git work tree that holds the Corpus (the system
under test), ``-dirty`` when that tree has changes, and the versions of the harness that ran.

The tree read is the Corpus's, never the harness's checkout nor the working directory: a team
that installs ``eval`` into its own repository promotes Baselines of its own commits. The
harness's own outputs in that tree (the project's outputs and Baselines folders,
:mod:`eval_core._util.project`) are not changes: a Sweep writes them, so a second ``--promote``
right after a first is not refused for the first one's Baseline.

``unknown`` (no git, not a repository, no commit yet) counts as dirty: a result that cannot say
where it came from is never promoted.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

import msgspec


class Provenance(msgspec.Struct, frozen=True):
    """A Sweep's provenance: the Corpus tree's ``commit`` and the ``harness``'s versions (the
    core's, the Host's and the model source's distributions by name)."""

    commit: str
    harness: dict[str, str] = msgspec.field(default_factory=dict)


def tree_commit(directory: Path, outputs: Iterable[Path] = ()) -> str:
    """The commit of the work tree holding ``directory``, ``-dirty`` when it has changes apart
    from the folders ``outputs`` (the harness's own writing).

    One ``git status`` (porcelain v2 names the commit on its ``# branch.oid`` line): every
    Sweep asks, and a second git process would cost it another few milliseconds."""
    top = _work_tree(directory)
    if top is None and not any(name in os.environ for name in _GIT_LOCATING):
        return "unknown"  # no work tree holds it, and git would find none: no process to ask
    excluded = [f":(top,exclude,literal){rel}" for rel in _inside(top, outputs)] if top else []
    try:
        report = subprocess.run(
            ["git", "status", "--porcelain=v2", "--branch", "--", ":(top)", *excluded],
            cwd=str(directory),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    head = ""
    changed = False
    for line in report.splitlines():
        if line.startswith("# branch.oid "):
            head = line.removeprefix("# branch.oid ").strip()
        elif line and not line.startswith("# "):
            changed = True
    if len(head) < 40 or head == "(initial)":  # no commit yet: nothing to name
        return "unknown"
    return f"{head}-dirty" if changed else head


_GIT_LOCATING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")
"""What lets git find a repository without a ``.git`` above the directory."""


def is_clean(version: str) -> bool:
    return version != "unknown" and not version.endswith("-dirty")


def _work_tree(directory: Path) -> Path | None:
    """The directory holding ``.git`` at or above ``directory`` (resolved), from the file
    system: the excluded folders are named relative to it."""
    here = Path(directory).resolve()
    for folder in (here, *here.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def _inside(top: Path, folders: Iterable[Path]) -> list[str]:
    """Each folder inside ``top``, relative to it in git's spelling (a folder outside it, or
    the whole tree, is no exclusion git would accept)."""
    found: list[str] = []
    for folder in folders:
        try:
            relative = Path(folder).resolve().relative_to(top)
        except ValueError:
            continue
        if relative.parts:
            found.append(relative.as_posix())
    return found
