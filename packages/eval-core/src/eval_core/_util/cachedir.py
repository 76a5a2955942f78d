"""Where ``eval`` keeps what it can recompute: ``$EVAL_CACHE_DIR`` if set, else the platform's
user cache directory for ``eval`` as platformdirs names it (``$XDG_CACHE_HOME/eval`` or
``~/.cache/eval`` on Linux, ``~/Library/Caches/eval`` on macOS, ``%LOCALAPPDATA%\\eval\\Cache``
on Windows). Everything under it is keyed by content and safe to delete."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    configured = os.environ.get("EVAL_CACHE_DIR")
    if configured:
        return Path(configured)
    # imported here, not at the top: a command given EVAL_CACHE_DIR never loads it
    from platformdirs import user_cache_path

    return user_cache_path("eval", appauthor=False)
