"""Where ``eval`` keeps what it can recompute: ``$EVAL_CACHE_DIR`` if set, else the platform's
user cache directory for ``eval`` as platformdirs names it (``$XDG_CACHE_HOME/eval`` or
``~/.cache/eval`` on Linux, ``~/Library/Caches/eval`` on macOS, ``%LOCALAPPDATA%\\eval\\Cache``
on Windows). Everything under it is keyed by content and safe to delete; ``EVAL_CACHE=off``
turns every cache off."""

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


def enabled() -> bool:
    """Whether caches are on (``EVAL_CACHE`` is not ``off``, ``0``, ``no`` or ``false``)."""
    return os.environ.get("EVAL_CACHE", "").lower() not in ("off", "0", "no", "false")


def plugin_cache(name: str) -> Path | None:
    """The directory a plug-in keeps its own recomputable answers in (``plugins/<name>`` under
    the cache; not created here), or ``None`` while caches are off. Keep entries keyed by
    content, write them atomically, and read a corrupt one as a miss."""
    return cache_dir() / "plugins" / name if enabled() else None
