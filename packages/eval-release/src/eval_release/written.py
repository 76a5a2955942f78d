"""The JUnit file ``eval sweep --junit-xml`` writes: each Case named by its file's path."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_core.commands import SweepLeg
from eval_core.hosts import Corpus
from eval_release import junit


def junit_files(corpus: Corpus, root: Path) -> dict[str, str]:
    """Each Case's file as JUnit names it: its path from the root of the repository the
    Sweep ran in (else from the working directory ``root``; a file outside it, as given)."""
    base = Path(os.path.abspath(_repository_root(root) or root))
    found: dict[str, str] = {}
    for case_id in corpus.files:
        file = corpus.file(case_id)
        assert file is not None
        absolute = Path(os.path.abspath(file))
        try:
            found[case_id] = absolute.relative_to(base).as_posix()
        except ValueError:
            found[case_id] = file.as_posix()
    return found


def junit_bytes(
    corpus: Corpus, root: Path, legs: Sequence[SweepLeg], trials: Sequence[Any]
) -> bytes:
    """The JUnit XML of a Sweep's measured legs, each Case's state against the Baseline too."""
    cards = [r.card for r in legs if r.card is not None]
    against = [r.states for r in legs if r.card is not None]
    return junit.render(cards, trials, junit_files(corpus, root), against)


def _repository_root(directory: Path | None = None) -> Path | None:
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
