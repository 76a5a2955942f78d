"""A lock's pins answer for the bytes they pinned: a fresh machine (no digest cache) checking a
locked Corpus parses none of the locked code, and a prose edit still moves nothing."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from eval_core._plugins import lock
from eval_core._util import code, file_digest
from eval_core._util.digest_cache import DigestCache

SOURCE = '''"""A scorer module."""


def score(answer):
    """How long the answer is."""
    return len(answer)  # characters
'''


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package on disk and a process that has digested nothing (no cache, no pins)."""
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(file_digest, "CACHE", DigestCache())
    monkeypatch.setattr(code, "_PINNED", {})
    package = tmp_path / "acme_seed"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "scorer.py").write_text(SOURCE)
    return package


def test_pinned_bytes_are_not_parsed_and_other_bytes_are(fresh: Path) -> None:
    roots = (str(fresh),)
    computed = code.fingerprint_at("acme-seed-not-installed", roots)
    raw = code.raw_of(computed.digest)
    assert len(raw) == len(computed.digest) == 16 and raw != computed.digest

    code.remember([(raw, "0123456789abcdef")])  # a pin no parse could give: the pin answered
    assert code.fingerprint_at("acme-seed-not-installed", roots).digest == "0123456789abcdef"

    scorer = fresh / "scorer.py"
    scorer.write_text(SOURCE.replace("# characters", "# in characters"))  # prose: parsed again
    assert code.fingerprint_at("acme-seed-not-installed", roots).digest == computed.digest

    scorer.write_text(SOURCE.replace("len(answer)", "len(answer) + 1"))  # code: a new digest
    assert code.fingerprint_at("acme-seed-not-installed", roots).digest != computed.digest


def test_a_lock_pins_the_bytes_it_seeds_and_a_broken_lock_seeds_nothing(
    fresh: Path, tmp_path: Path
) -> None:
    computed = code.fingerprint_at("acme-seed-not-installed", (str(fresh),))
    row = {"distribution": "acme-seed", "version": "1.0", "entryPoint": "acme"}
    pinned = {**row, "code": "fedcba9876543210", "codeBytes": code.raw_of(computed.digest)}
    path = tmp_path / "eval.lock"
    path.write_text("{not json")
    lock.seed(path)
    assert code.fingerprint_at("acme-seed-not-installed", (str(fresh),)) == computed
    path.write_text(json.dumps({"lockVersion": lock.LOCK_VERSION, "plugins": [pinned]}))
    lock.seed(path)
    assert code.fingerprint_at("acme-seed-not-installed", (str(fresh),)).digest == pinned["code"]


def test_the_shipped_lock_pins_the_bytes_of_every_plugin() -> None:
    shipped = Path(__file__).resolve().parents[3] / "corpus" / lock.LOCK_NAME
    pins = msgspec.json.decode(shipped.read_bytes())["plugins"]
    assert pins and all(len(p["codeBytes"]) == 16 for p in pins)


@pytest.mark.parametrize(
    "source",
    ["x = " + "+".join(["1"] * 2000), "x = " + "[" * 100_000 + "]" * 100_000],
    ids=["a-sum-of-2000-terms", "lists-nested-100000-deep"],
)
def test_python_nested_past_the_interpreters_depth_is_keyed_by_its_bytes(source: str) -> None:
    """A plug-in's or a team's module is untrusted: one whose syntax tree is deeper than the
    interpreter parses or walks (a long sum is a tree as deep as it is long) is digested by its
    bytes, never raising."""
    import hashlib

    from eval_core._util.syntax_digest import normalised

    data = (source + "\n").encode()
    assert normalised("deep.py", data) == hashlib.sha256(data).hexdigest()


def test_a_parse_another_thread_tripped_is_parsed_again_never_keyed_by_its_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CPython 3.11 keeps the AST's depth count per interpreter: a parse racing another
    thread's can raise SystemError. The digest parses again, so the same file is never keyed
    by its bytes one time and by its syntax the next (a lock would then see code move)."""
    import ast
    import hashlib

    from eval_core._util import syntax_digest

    data = b'"""Docs."""\nx = 1\n'
    expected = syntax_digest.normalised("m.py", data)
    assert expected != hashlib.sha256(data).hexdigest()
    real, tripped = ast.parse, []

    def racing(*args: object, **kwargs: object) -> ast.AST:
        if not tripped:
            tripped.append(True)
            raise SystemError("AST constructor recursion depth mismatch (before=141, after=29)")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(syntax_digest.ast, "parse", racing)
    assert syntax_digest.normalised("m.py", data) == expected and tripped
