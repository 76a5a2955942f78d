"""Which harness produced a result: the git commit, ``-dirty`` when the tree has changes.

``unknown`` (no git, not a repository) counts as dirty: a result that cannot say where it came
from is never promoted.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def harness_version(directory: Path | None = None) -> str:
    cwd = str(directory) if directory is not None else None
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}-dirty" if status.strip() else head


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
