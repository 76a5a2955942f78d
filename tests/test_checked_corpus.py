"""The checked-Corpus cache: a second load of the same inputs decodes what the first checked,
and any change to what a load reads (a Case's bytes, the Soul, the code) checks again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_core import checked
from eval_core.corpus import CorpusError, Loader
from eval_core.plugins import PluginSet

from .conftest import WriteCase, minimal_case


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    return tmp_path / "cache" / "corpora"


def _no_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on a Case that is checked fails the test: only the cache can answer."""

    def refuse(*_: object, **__: object) -> object:
        raise AssertionError("a Case was checked")

    monkeypatch.setattr(Loader, "_check", refuse)


def test_a_second_load_is_the_same_corpus_without_checking(
    loader: Loader, write_case: WriteCase, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        write_case(minimal_case(f"c{n}"))
    first = loader.load(corpus_dir)
    _no_checks(monkeypatch)
    second = loader.load(corpus_dir)
    assert second == first
    assert second.hash == first.hash and second.cases == first.cases


def test_a_changed_case_is_checked_again(
    loader: Loader, write_case: WriteCase, corpus_dir: Path
) -> None:
    write_case(minimal_case("c"))
    loader.load(corpus_dir)
    write_case(minimal_case("c", agent="nobody"))
    with pytest.raises(CorpusError, match="unknown agent 'nobody'"):
        loader.load(corpus_dir)
    with pytest.raises(CorpusError, match="unknown agent 'nobody'"):  # a refusal is not kept
        loader.load(corpus_dir)


def test_a_changed_soul_is_checked_again(
    plugins: PluginSet, write_case: WriteCase, corpus_dir: Path
) -> None:
    write_case(minimal_case("c", expect=[{"kind": "output_contains", "text": "Lisse"}]))
    host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
    before = Loader(plugins, host, judge="no-judge").load(corpus_dir)
    guide = corpus_dir / "soul" / "agents" / "support" / "AGENT.md"
    guide.write_text(guide.read_text().replace("Lisse", "Leiden"))
    host = plugins.hosts["agent-runtime"](corpus_dir / "soul")
    with pytest.raises(CorpusError, match="'Lisse' is not grounded"):
        Loader(plugins, host, judge="no-judge").load(corpus_dir)
    assert before.soul_hash


def test_every_input_moves_the_key() -> None:
    base = {
        "suite": "capability",
        "soul": "s",
        "plugins": [("d", "1", "e", "c")],
        "host": "h",
        "judge": "no-judge",
    }
    files = [("a.json", b"{}")]
    keys = {checked.key(files, **base)}  # type: ignore[arg-type]
    for name, other in [
        ("suite", "red-team"),
        ("soul", "t"),
        ("plugins", [("d", "1", "e", "changed")]),
        ("host", "h2"),
        ("judge", "x|y"),
    ]:
        keys.add(checked.key(files, **{**base, name: other}))  # type: ignore[arg-type]
    keys.add(checked.key([("b.json", b"{}")], **base))  # type: ignore[arg-type]
    keys.add(checked.key([("a.json", b"{ }")], **base))  # type: ignore[arg-type]
    keys.add(checked.key([("a.json", b"{}"), ("b.json", b"")], **base))  # type: ignore[arg-type]
    assert len(keys) == 9


def test_a_corrupt_entry_is_a_miss(
    loader: Loader, write_case: WriteCase, corpus_dir: Path, cache: Path
) -> None:
    write_case(minimal_case("c"))
    first = loader.load(corpus_dir)
    (entry,) = cache.iterdir()
    entry.write_bytes(b"\x93not msgpack at all")
    assert loader.load(corpus_dir) == first
    assert entry.read_bytes().startswith(b"\x84")  # rewritten whole


def test_no_fingerprint_or_off_means_no_cache(
    loader: Loader,
    write_case: WriteCase,
    corpus_dir: Path,
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_case(minimal_case("c"))
    monkeypatch.setenv("EVAL_CACHE", "off")
    loader.load(corpus_dir)
    assert not cache.exists()
    monkeypatch.delenv("EVAL_CACHE")
    monkeypatch.setattr(type(loader.host), "fingerprint", lambda _: None)
    loader.load(corpus_dir)
    assert not cache.exists()


def test_the_shipped_corpus_round_trips(plugins: PluginSet, real_host: object) -> None:
    root = Path(__file__).resolve().parent.parent / "corpus"
    for directory in (root, root / "red-team"):
        loader = Loader(plugins, real_host, judge="no-judge")  # type: ignore[arg-type]
        cold = loader.load(directory)
        warm = loader.load(directory)
        assert warm == cold
        assert json.dumps(sorted(c.id for c in warm.cases)) == json.dumps(
            sorted(c.id for c in cold.cases)
        )


def test_stored_schema_fingerprints_are_the_derived_ones(cache: Path) -> None:
    from eval_core.plugins import field_schema_hash, kind_schema_hash, load_plugins

    derived = load_plugins()
    want = {name: kind_schema_hash(spec) for name, spec in derived.kinds.items()}
    want.update({f"field:{n}": field_schema_hash(f) for n, f in derived.fields.items()})
    assert derived.schemas() == want  # derived, then stored
    (stored,) = (cache.parent / "schemas").iterdir()
    assert load_plugins().schemas() == want  # read back
    stored.write_text('{"output_contains": 7}')
    assert load_plugins().schemas() == want  # a damaged entry is derived again
