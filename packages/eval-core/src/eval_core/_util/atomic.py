"""Atomic writes: a Scorecard, Baseline or lock is the old file or the new one, never half.

The temporary file :func:`tempfile.mkstemp` makes is private (mode 0600), and a rename keeps
that mode; an output a user asked for should have the mode any other file they write gets. So
before the rename the temporary file is given the mode ``open()`` would have given it: a new
file ``0666`` less the process's umask (``0644`` under the usual umask 022), and a file that is
replaced keeps its own permission bits, as writing into it in place would.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux's
    ``/proc/self/status``); elsewhere set and restored at once, under a lock."""
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        current = os.umask(0o022)
        os.umask(current)
    return current


def _mode(path: Path) -> int:
    """The mode ``open(path, "w")`` leaves ``path`` with."""
    try:
        existing = os.stat(path)
    except OSError:
        return 0o666 & ~umask()
    if stat.S_ISREG(existing.st_mode):
        return stat.S_IMODE(existing.st_mode)
    return 0o666 & ~umask()


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same directory, fsync it, give it the mode a plain
    write would (see the module), then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), _mode(path))
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
