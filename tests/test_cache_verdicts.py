"""Caches cannot change a verdict (issue 45, class 3): whatever is done to the kept entries
(truncated, a byte flipped, grafted from another entry, forged by someone without the seal
key, or a checked-Corpus entry whose Cases are rewritten under its own key with the key),
every Sweep's exit code and verdict lines, and its corpusHash, are those of a Sweep with the
caches off. A tiny Corpus per verdict, in-process, a few examples."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_cli.cli import invoke
from eval_core._util import cache_entry, checked

from .conftest import SOUL, minimal_case

ASKED = [{"role": "user", "content": "Do you sell daffodils or tulip bulbs?"}]
CORPORA: dict[str, list[dict[str, Any]]] = {
    "fails": [
        minimal_case("pass"),
        minimal_case(
            "other", input=ASKED, expect=[{"kind": "output_contains", "text": "daffodils"}]
        ),
    ],
    "clears": [
        minimal_case("pass"),
        minimal_case("other", input=ASKED, expect=[{"kind": "output_contains", "text": "tulip"}]),
    ],
    "refused": [minimal_case("pass"), minimal_case("other", agent="nobody")],
    "accepted": [minimal_case("pass"), minimal_case("other", agent="support")],
}


def _verdict(corpus: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """The exit code, the corpusHash and every verdict line of ``eval sweep`` (timings out)."""
    capsys.readouterr()
    code = invoke(["sweep", str(corpus), "--unlocked", "--quiet"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    lines = []
    for line in out.splitlines():
        if line.startswith("Sweep "):
            lines.extend(w for w in line.split() if w.startswith("corpus="))
        elif line.split(" ")[0] in ("PASS", "FAIL", "ERR", "CLEARED", "NOT") or "passed" in line:
            lines.append(line)
    lines.extend(e for e in err.splitlines() if e.startswith(("Corpus refused", "  ")))
    return code, lines


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Path]]]:
    base = tmp_path_factory.mktemp("verdicts")
    corpora: dict[str, Path] = {}
    for name, cases in CORPORA.items():
        directory = base / name
        directory.mkdir()
        shutil.copytree(SOUL, directory / "soul")
        for case in cases:
            (directory / f"{case['id']}.json").write_text(json.dumps(case))
        corpora[name] = directory
    yield base, corpora


_EXPECTED: dict[str, tuple[int, list[str]]] = {}


@pytest.fixture
def expected(
    world: tuple[Path, dict[str, Path]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> dict[str, tuple[int, list[str]]]:
    """Each Corpus's verdict with the caches off (computed once per session)."""
    if not _EXPECTED:
        base, corpora = world
        with monkeypatch.context() as patch:
            patch.chdir(base)
            patch.setenv("EVAL_CACHE", "off")
            for name, corpus in corpora.items():
                _EXPECTED[name] = _verdict(corpus, capsys)
    assert [_EXPECTED[n][0] for n in CORPORA] == [1, 0, 2, 0], _EXPECTED
    return _EXPECTED


def _caches_on(base: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Sweep from ``base`` with the caches on, kept in ``base / name`` (a directory of their own
    per test, so one test's edits never reach another's)."""
    cache = base / name
    monkeypatch.chdir(base)
    monkeypatch.setenv("EVAL_CACHE_DIR", str(cache))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    return cache


def _entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file() and p.name != "help.txt")


def _foreign_seal(content: bytes) -> bytes:
    """An entry sealed by someone without this user's key."""
    mac = hmac.new(b"not the key" * 3, content, hashlib.sha256).digest()
    return b"eval-cache\x002\x00" + mac + content


def _recase(target: Path, source: Path) -> None:
    """A checked-Corpus entry keeping its key but carrying another Corpus's Cases (their
    digests, file by file, in the order the files load), sealed with the real key (an
    insider's rewrite: only re-checking against the Case files stops it)."""
    kept = checked.read_path(target)
    donor = checked.read_path(source)
    if kept is None or donor is None:
        return
    grafted = dict(zip(kept.files, donor.files.values(), strict=False))
    rewritten = msgspec.structs.replace(kept, files=grafted)
    cache_entry.write_entry(target, msgspec.msgpack.encode(rewritten))


def _apply(op: tuple[str, int, int, float], cache: Path) -> None:
    entries = _entries(cache)
    if not entries:
        return
    action, at, source_at, fraction = op
    target, source = entries[at % len(entries)], entries[source_at % len(entries)]
    data = target.read_bytes()
    if action == "truncate":
        target.write_bytes(data[: int(len(data) * fraction)])
    elif action == "flip" and data:
        index = min(int(len(data) * fraction), len(data) - 1)
        target.write_bytes(data[:index] + bytes([data[index] ^ 0x40]) + data[index + 1 :])
    elif action == "graft":
        target.write_bytes(source.read_bytes())
    elif action == "forge":
        content = cache_entry.unseal(source.read_bytes()) or source.read_bytes()
        target.write_bytes(_foreign_seal(content))
    elif action == "recase":
        corpora = [p for p in entries if p.parent.name == "corpora"]
        if corpora:
            _recase(corpora[at % len(corpora)], corpora[source_at % len(corpora)])


OPS = st.tuples(
    st.sampled_from(["truncate", "flip", "graft", "forge", "recase"]),
    st.integers(0, 200),
    st.integers(0, 200),
    st.floats(0, 1),
)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(OPS, min_size=1, max_size=4))
def test_no_edit_of_the_caches_changes_a_verdict(
    ops: list[tuple[str, int, int, float]],
    world: tuple[Path, dict[str, Path]],
    expected: dict[str, tuple[int, list[str]]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, corpora = world
    cache = _caches_on(base, "cache", monkeypatch)
    for name, corpus in corpora.items():  # fill (or refill) every cache
        assert _verdict(corpus, capsys) == expected[name], name
    for op in ops:
        _apply(op, cache)
    for name, corpus in corpora.items():
        assert _verdict(corpus, capsys) == expected[name], (name, ops)


def test_a_rewritten_checked_corpus_entry_does_not_clear_a_failing_corpus(
    world: tuple[Path, dict[str, Path]],
    expected: dict[str, tuple[int, list[str]]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probe of issue 45: the failing Corpus's entry, under its own key and sealed with
    the real key, carries the Cases of the Corpus that clears."""
    base, corpora = world
    _caches_on(base, "rewritten", monkeypatch)
    for name in ("fails", "clears"):
        assert _verdict(corpora[name], capsys) == expected[name]
    fails = checked._path(corpora["fails"], "capability")
    _recase(fails, checked._path(corpora["clears"], "capability"))
    assert checked.read_path(fails) is not None  # the rewrite is a well-sealed entry
    assert _verdict(corpora["fails"], capsys) == expected["fails"]


def test_a_forged_soul_entry_does_not_turn_a_refusal_into_a_run(
    world: tuple[Path, dict[str, Path]],
    expected: dict[str, tuple[int, list[str]]],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The refused Corpus's Soul entry, under its own key, gains the agent its Case names:
    written by someone without the seal key, it is a miss, and the refusal stands."""
    base, corpora = world
    cache = _caches_on(base, "soul-forged", monkeypatch)
    assert _verdict(corpora["refused"], capsys) == expected["refused"]
    from eval_host_agent_runtime.soul_cache import Stored

    (entry,) = (cache / "plugins" / "agent-runtime-soul").glob("*/*.bin")
    stored = msgspec.msgpack.decode(cache_entry.unseal(entry.read_bytes()) or b"", type=Stored)
    agents = {**stored.agents, "nobody": stored.agents["support"]}
    forged = msgspec.msgpack.encode(msgspec.structs.replace(stored, agents=agents))
    entry.write_bytes(_foreign_seal(forged))
    assert _verdict(corpora["refused"], capsys) == expected["refused"]
    os.unlink(entry)


@pytest.mark.parametrize("where", [".", "soul/.cache", "soul"])
def test_a_cache_directory_in_the_corpus_or_its_soul_changes_nothing(
    tmp_path: Path,
    where: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cache directory equal to the Corpus (the next Sweep refused the Corpus) or inside its
    Soul (the corpusHash moved): the caches are off, nothing is written there, and two Sweeps
    give the verdict and corpusHash a cache elsewhere gives."""
    corpus = tmp_path / "corpus"
    shutil.copytree(SOUL, corpus / "soul")
    (corpus / "pass.json").write_text(json.dumps(minimal_case("pass")))
    before = sorted(p.relative_to(corpus) for p in corpus.rglob("*"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "elsewhere"))
    elsewhere = _verdict(corpus, capsys)
    monkeypatch.setenv("EVAL_CACHE_DIR", str(corpus / where))
    assert _verdict(corpus, capsys) == elsewhere == _verdict(corpus, capsys)
    assert sorted(p.relative_to(corpus) for p in corpus.rglob("*")) == before
