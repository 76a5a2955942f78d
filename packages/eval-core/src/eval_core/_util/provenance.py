"""Which harness produced a result: the git commit, ``-dirty`` when the tree has changes.

``unknown`` (no git, not a repository) counts as dirty: a result that cannot say where it came
from is never promoted.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def harness_version(directory: Path | None = None) -> str:
    """One ``git status`` (porcelain v2 names the commit on its ``# branch.oid`` line): every
    Sweep asks, and a second git process would cost it another few milliseconds."""
    cwd = str(directory) if directory is not None else None
    try:
        report = subprocess.run(
            ["git", "status", "--porcelain=v2", "--branch"],
            cwd=cwd,
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


def is_clean(version: str) -> bool:
    return version != "unknown" and not version.endswith("-dirty")


def repository_root(directory: Path | None = None) -> Path | None:
    """The root of the git repository ``directory`` (default: the working one) is in, or
    ``None`` outside one (or without git)."""
    cwd = str(directory) if directory is not None else None
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return Path(top) if top else None
