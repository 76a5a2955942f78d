"""A Corpus: the loaded, validated, hashed unit of comparability, the refusal that lists every
problem of one, and where its Case files, its Eval Soul and its lock are found. The loader that
makes one: :mod:`eval_core._loading.loader`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from eval_core._case.case import CaseBase
from eval_core._loading.decode import json_problem
from eval_core._loading.problem import Problem
from eval_core._util.layout import CASE_SUFFIXES, LOCK_NAME, RED_TEAM, SOUL

__all__ = [
    "CASE_SUFFIXES",
    "RED_TEAM",
    "Corpus",
    "CorpusError",
    "Problem",
    "case_files",
    "corpus_root",
    "find_soul",
    "json_problem",
]


class CorpusError(Exception):
    """The Corpus is refused. ``problems`` lists every one found, in file order; ``notes``
    are said once after them (the next step, rather than on every line)."""

    def __init__(
        self,
        problems: Sequence[Problem],
        directory: Path | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        self.problems = list(problems)
        self.notes = list(notes)
        where = f" in {directory}" if directory else ""
        lines = [f"Corpus refused{where}: {len(self.problems)} problem(s)"]
        lines.extend(f"  {p}" for p in self.problems)
        lines.extend(self.notes)
        super().__init__("\n".join(lines))


class Corpus(msgspec.Struct, frozen=True):
    """A loaded, validated, hashed Corpus: the unit of comparability."""

    directory: Path
    suite: str
    cases: tuple[CaseBase, ...]
    hash: str
    soul_dir: Path | None
    """The Eval Soul (``None`` for a Host that owns its agents and a Corpus without one)."""
    soul_hash: str
    """Its digest, in the corpusHash (``""`` without a Soul)."""
    plugins: tuple[dict[str, Any], ...]
    judge: str
    case_hashes: Mapping[str, str] = msgspec.field(default_factory=dict)
    """Each Case's digest by id (:func:`~eval_core._util.hashing.case_digests`), as the Scorecard
    records it so a refused comparison can name the Cases that differ."""
    files: Mapping[str, str] = msgspec.field(default_factory=dict)
    """Each Case's file by id, as named in ``directory`` (a variant's is its source Case's)."""
    notes: tuple[str, ...] = ()
    """What Cases load with but mean differently here (a Tool sharing a platform Tool's name,
    an empty retired context key), one line each: the command opening it prints them."""

    def file(self, case_id: str) -> Path | None:
        """The file a Case was read from (``None`` for a Case this Corpus did not load)."""
        name = self.files.get(case_id)
        return self.directory / name if name is not None else None

    def case(self, case_id: str) -> CaseBase:
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def tiers(self) -> dict[str, int]:
        return dict(sorted(Counter(c.tier for c in self.cases).items()))


def find_soul(directory: Path) -> Path | None:
    """The Eval Soul: ``soul/`` in the Corpus directory or in its parent (for ``red-team/``)."""
    for candidate in (directory / SOUL, directory.parent / SOUL):
        if candidate.is_dir():
            return candidate
    return None


def corpus_root(directory: Path) -> Path:
    """Where ``eval.lock`` lives: beside the Soul (the capability Corpus directory); without a
    Soul, the directory or its parent that holds the lock (a red-team directory's is its
    parent's), else the directory itself."""
    soul = find_soul(directory)
    if soul is not None:
        return soul.parent
    for candidate in (directory, directory.parent):
        if (candidate / LOCK_NAME).is_file():
            return candidate
    return directory


def case_files(directory: Path) -> list[Path]:
    """Every entry of a directory named like a Case file, sorted by name.

    Subdirectories are not searched, but nothing named ``*.json``/``*.yaml``/``*.yml`` is
    skipped: a directory, a dangling symbolic link or a FIFO under such a name is a problem the
    loader reports, never a Case silently left out.
    """
    return [directory / name for name in case_names(directory)]


def case_names(directory: Path) -> list[str]:
    try:
        with os.scandir(directory) as entries:
            return sorted(e.name for e in entries if e.name.endswith(CASE_SUFFIXES))
    except OSError as exc:
        reason = f"the Corpus directory cannot be listed: {exc.strerror or exc}"
        raise CorpusError([Problem(str(directory), "$", reason)]) from None
