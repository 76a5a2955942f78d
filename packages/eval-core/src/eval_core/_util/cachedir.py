"""Where ``eval`` keeps what it can recompute: ``$EVAL_CACHE_DIR`` if set, else the platform's
user cache directory for ``eval`` as platformdirs names it (``$XDG_CACHE_HOME/eval`` or
``~/.cache/eval`` on Linux, ``~/Library/Caches/eval`` on macOS, ``%LOCALAPPDATA%\\eval\\Cache``
on Windows). Everything under it is keyed by content and safe to delete; ``EVAL_CACHE=off``
turns every cache off.

The cache never lives inside what it describes: once a command names its Corpus
(:func:`keep_out_of`), a cache directory that is the Corpus, is inside it or its Eval Soul, or
holds either, turns every cache off for that command. An entry written there would change the
Soul's bytes (and so the corpusHash) or add a file the next load reads as a Case.
"""

from __future__ import annotations

import os
from pathlib import Path

_KEPT_OUT: list[str] = []  # resolved directories the cache may not overlap


def cache_dir() -> Path:
    configured = os.environ.get("EVAL_CACHE_DIR")
    if configured:
        return Path(configured)
    # imported here, not at the top: a command given EVAL_CACHE_DIR never loads it
    from platformdirs import user_cache_path

    return user_cache_path("eval", appauthor=False)


def keep_out_of(*directories: Path | None) -> None:
    """Say the directories the cache may not overlap (the Corpus, its Soul): while it does,
    :func:`enabled` is False."""
    for directory in directories:
        if directory is not None:
            resolved = os.path.realpath(directory)
            if resolved not in _KEPT_OUT:
                _KEPT_OUT.append(resolved)


def _overlaps(cache: str) -> bool:
    for kept in _KEPT_OUT:
        if cache == kept or cache.startswith(kept + os.sep) or kept.startswith(cache + os.sep):
            return True
    return False


def enabled() -> bool:
    """Whether caches are on: ``EVAL_CACHE`` is not ``off``, ``0``, ``no`` or ``false``, and the
    cache directory overlaps no directory given to :func:`keep_out_of`."""
    if os.environ.get("EVAL_CACHE", "").lower() in ("off", "0", "no", "false"):
        return False
    return not _KEPT_OUT or not _overlaps(_resolved(str(cache_dir())))


_RESOLVED: dict[str, str] = {}


def _resolved(cache: str) -> str:
    """The cache directory's real path, resolved once a process per spelling (every cache
    read asks :func:`enabled`: a one-Case Sweep about seventy times)."""
    real = _RESOLVED.get(cache)
    if real is None:
        real = _RESOLVED[cache] = os.path.realpath(cache)
    return real


def plugin_cache(name: str) -> Path | None:
    """The directory a plug-in keeps its own recomputable answers in (``plugins/<name>/<tag>``
    under the cache; not created here), or ``None`` while caches are off. ``<tag>`` digests
    what every key holds (:func:`~eval_core._util.cache_key.common`: the interpreter, msgspec,
    the harness's code), so the plug-in keys its entries by its own inputs only. Read and write
    them with ``read_cache_entry``/``write_cache_entry`` (:mod:`eval_core._util.cache_entry`:
    bounded, sealed, atomic, any doubt a miss), which also say each hit and miss under ``name``
    (:mod:`eval_core._util.cache_use`: a Sweep's Scorecard names the caches it used)."""
    from eval_core._util import cache_use

    if not enabled():
        cache_use.note(name, "off")
        return None
    import hashlib

    import msgspec

    from eval_core._util.cache_key import common

    tag = hashlib.sha256(msgspec.json.encode(common())).hexdigest()[:16]
    return cache_dir() / PLUGINS / name / tag


PLUGINS = "plugins"


def plugin_of(entry: Path) -> str | None:
    """The plug-in cache an entry's path is in (``plugins/<name>/<tag>/<entry>``), or ``None``."""
    parts = entry.parts
    if len(parts) < 4 or parts[-4] != PLUGINS:
        return None
    return parts[-3] if Path(*parts[:-4]) == cache_dir() else None
