"""``git`` in a throwaway repository a test builds, shared by every package's tests: a fixed
author on the command line, so a commit needs no user configuration on the machine."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(directory: Path, *args: str) -> str:
    """Run ``git ARGS`` in ``directory``; its output, stripped (a failure raises)."""
    return subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=directory,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
