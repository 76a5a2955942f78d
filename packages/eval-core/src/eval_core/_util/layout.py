"""A Corpus on disk: which names in its directory the loader reads.

One place, because two rules depend on it: the loader (what is a Case file) and the output
checks (an output may go in a Corpus directory, but never where it would overwrite an input
or be read as one next time).
"""

from __future__ import annotations

from pathlib import Path

CASE_SUFFIXES = (".json", ".yaml", ".yml")
RED_TEAM = "red-team"
SOUL = "soul"
LOCK_NAME = "eval.lock"


def read_by_corpus(tree: Path, path: Path) -> bool:
    """Whether the Corpus whose root is ``tree`` reads ``path`` (both canonical): a Case file or
    the lock directly in it or in its ``red-team/``, or anything inside its Soul."""
    if tree / SOUL == path or tree / SOUL in path.parents:
        return True
    return path.parent in (tree, tree / RED_TEAM) and (
        path.name.endswith(CASE_SUFFIXES) or path.name == LOCK_NAME
    )
