"""What every cache key holds (:mod:`eval_core._util.cache_key`): the interpreter, read when the
key is made, so each cache misses under another implementation, version or executable; and the
code digests' own keys (a file rewritten to its old size and mtime still misses).

The end-to-end test (every cache, every input, through the Scorecard) is
``tests/test_cache_keys.py``; these change one input in this process.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from eval_cli import help_cache
from eval_core._plugins import manifest
from eval_core._recording.transcript import evidence_schema
from eval_core._util import cache_key, cache_use, checked
from eval_core._util.code import fingerprint_at
from eval_core._util.file_digest import CACHE as _CACHE


def _implementation(**changed: object) -> types.SimpleNamespace:
    """``sys.implementation`` with ``changed`` fields: another interpreter's."""
    fields = {name: getattr(sys.implementation, name) for name in ("name", "version", "cache_tag")}
    fields.update(changed)
    return types.SimpleNamespace(**fields)


ANOTHER = {
    "executable": lambda m: m.setattr(sys, "executable", sys.executable + "-another"),
    "implementation": lambda m: m.setattr(sys, "implementation", _implementation(name="pypy")),
    "version": lambda m: m.setattr(
        sys, "implementation", _implementation(version=(3, 99, 0, "final", 0))
    ),
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    return tmp_path / "cache"


def _keys() -> list[str]:
    """Each core cache's key as it would be made now."""
    return [
        cache_key.interpreter(),
        manifest.key("ep", "mod:obj", "dist", "1.0", "c0de"),
        checked.environment(suite="capability", soul="s", plugins=[], host="h", judge="j"),
        help_cache._key(["--help"], 80) or "",
        str(_CACHE.path),
    ]


@pytest.mark.parametrize("what", sorted(ANOTHER))
def test_another_interpreter_is_another_key_for_every_core_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    before = _keys()
    with monkeypatch.context() as patched:
        ANOTHER[what](patched)
        after = _keys()
    assert all(a != b for a, b in zip(before, after, strict=True)), (before, after)
    assert _keys() == before  # the same interpreter again: the same keys


@pytest.mark.parametrize("what", sorted(ANOTHER))
def test_the_kept_evidence_schema_misses_under_another_interpreter(
    cache: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    uses = []
    for changed in (False, False, True):
        with monkeypatch.context() as patched:
            if changed:
                ANOTHER[what](patched)
            cache_use.forget()
            evidence_schema()
            uses.append(cache_use.used()["evidence-schema"])
    assert uses == ["miss", "hit", "miss"]


def test_a_file_rewritten_to_its_old_size_and_mtime_is_digested_again(tmp_path: Path) -> None:
    """Size and mtime alone kept the old digest (an edit within a second, or ``touch -d``):
    the inode and the change time, which nobody sets by hand, say the file changed."""
    package = tmp_path / "probe_pkg"
    package.mkdir()
    module = package / "__init__.py"
    old = 1_000_000_000
    module.write_text("LIMIT = 1\n")
    os.utime(module, ns=(old, old))  # long ago: the digest is cached
    first = fingerprint_at("probe-pkg", (str(package),)).digest
    assert fingerprint_at("probe-pkg", (str(package),)).digest == first
    module.write_text("LIMIT = 2\n")  # the same size
    os.utime(module, ns=(old, old))  # and the same mtime
    assert fingerprint_at("probe-pkg", (str(package),)).digest != first


def test_use_is_hit_miss_partial_or_off() -> None:
    cache_use.forget()
    cache_use.note("a", "hit")
    cache_use.note("a", "hit")
    cache_use.note("b", "hit")
    cache_use.note("b", "miss")
    cache_use.note("c", "off")
    cache_use.note("c", "miss")
    assert cache_use.used() == {"a": "hit", "b": "partial", "c": "off"}
    assert [cache_use.share(h, 3) for h in (3, 0, 1)] == ["hit", "miss", "partial"]
    assert cache_use.share(3, 3, enabled=False) == "off"
    cache_use.forget()
    assert cache_use.used() == {}
