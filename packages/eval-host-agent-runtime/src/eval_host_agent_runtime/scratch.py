"""Where the L3 tier keeps its scratch files: the git copy of the Eval Soul and its bundles.

A Soul write makes and removes a few dozen files and directories (git's objects, a bundle
checked out, the reset after the Trial). On a disk mounted with ``discard`` one ``rmdir``
costs milliseconds (2 ms measured on the project's CI machine), on a RAM-backed ``/dev/shm``
microseconds; nothing there outlives the Sweep, and it is kilobytes. ``TMPDIR``, when set,
is the user's own choice and wins; without a writable ``/dev/shm`` it is the usual temporary
directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

RAM = Path("/dev/shm")


def scratch_dir(prefix: str) -> Path:
    """A new directory for scratch files, on RAM when the machine offers it."""
    if not os.environ.get("TMPDIR") and RAM.is_dir() and os.access(RAM, os.W_OK | os.X_OK):
        try:
            return Path(tempfile.mkdtemp(prefix=prefix, dir=RAM))
        except OSError:  # full, or refused: the usual place
            pass
    return Path(tempfile.mkdtemp(prefix=prefix))
