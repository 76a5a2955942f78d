"""Where ``eval`` keeps what it can recompute: ``$EVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/eval``,
else ``~/.cache/eval``. Everything under it is keyed by content and safe to delete."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    configured = os.environ.get("EVAL_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "eval"
