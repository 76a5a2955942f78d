"""The checked-Corpus cache: a second load of the same inputs decodes what the first checked; a
changed Case file is checked again on its own, and any other change to what a load reads (the
Soul, the code, the judge) checks every file again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._loading.corpus import Corpus, CorpusError
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import PluginSet
from eval_core._util import cache_entry, checked

from .conftest import WriteCase, minimal_case


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    return tmp_path / "cache" / "corpora"


@pytest.fixture
def kept(loader: Loader, write_case: WriteCase, corpus_dir: Path) -> Corpus:
    """Three valid Cases, ``c0`` to ``c2``, loaded once (and so kept)."""
    for n in range(3):
        write_case(minimal_case(f"c{n}"))
    return loader.load(corpus_dir)


def _no_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on a Case that is checked fails the test: only the cache can answer."""

    def refuse(*_: object, **__: object) -> object:
        raise AssertionError("a Case was checked")

    monkeypatch.setattr(Loader, "_check", refuse)


def test_a_second_load_is_the_same_corpus_without_checking(
    loader: Loader, kept: Corpus, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_checks(monkeypatch)
    second = loader.load(corpus_dir)
    assert second == kept
    assert second.hash == kept.hash and second.cases == kept.cases


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
    env = checked.environment(**base)  # type: ignore[arg-type]
    files = [checked.file_key("a.json", b"{}")]
    keys = {checked.key(env, files)}
    for name, other in [
        ("suite", "red-team"),
        ("soul", "t"),
        ("plugins", [("d", "1", "e", "changed")]),
        ("host", "h2"),
        ("judge", "x|y"),
    ]:
        keys.add(checked.key(checked.environment(**{**base, name: other}), files))  # type: ignore[arg-type]
    keys.add(checked.key(env, [checked.file_key("b.json", b"{}")]))
    keys.add(checked.key(env, [checked.file_key("a.json", b"{ }")]))
    keys.add(checked.key(env, [*files, checked.file_key("b.json", b"")]))
    assert len(keys) == 9


def _count_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the Cases checked from here on."""
    checked_ids: list[str] = []
    check = Loader._check

    def counting(self: Loader, file: str, stem: str | None, case: object, *rest: object) -> object:
        checked_ids.append(case.id)  # type: ignore[attr-defined]
        return check(self, file, stem, case, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(Loader, "_check", counting)
    return checked_ids


def _cold(loader: Loader, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as off:
        off.setenv("EVAL_CACHE", "off")
        return loader.load(corpus_dir)


def test_only_the_changed_files_are_checked_and_the_corpus_is_the_cold_one(
    loader: Loader, write_case: WriteCase, corpus_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(4):
        write_case(minimal_case(f"c{n}"))
    loader.load(corpus_dir)
    write_case(minimal_case("c1", trials=2))  # changed
    write_case(minimal_case("c4"))  # added
    (corpus_dir / "c3.json").unlink()  # removed
    seen = _count_checks(monkeypatch)
    warm = loader.load(corpus_dir)
    assert sorted(seen) == ["c1", "c4"]
    cold = _cold(loader, corpus_dir, monkeypatch)
    assert warm == cold
    assert [c.id for c in warm.cases] == ["c0", "c1", "c2", "c4"]
    assert next(c for c in warm.cases if c.id == "c1").trials == 2


def test_a_kept_case_still_meets_a_new_duplicate(
    loader: Loader, write_case: WriteCase, corpus_dir: Path
) -> None:
    write_case(minimal_case("c0"))
    write_case(minimal_case("c1"))
    loader.load(corpus_dir)
    write_case(json.dumps(minimal_case("c0")), name="c0.yaml")  # valid on its own
    with pytest.raises(
        CorpusError, match=r"c0\.yaml: \$\.id: duplicate id 'c0' \(also in .*c0\.json\)"
    ):
        loader.load(corpus_dir)


@pytest.mark.usefixtures("kept")
def test_a_new_environment_checks_every_file(
    plugins: PluginSet,
    loader: Loader,
    write_case: WriteCase,
    corpus_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_case(minimal_case("c0", trials=3))
    seen = _count_checks(monkeypatch)
    Loader(plugins, loader.host, judge="https://judge.example|j").load(corpus_dir)
    assert sorted(seen) == ["c0", "c1", "c2"]


def test_a_file_that_turns_bad_is_refused_and_the_rest_stay_kept(
    loader: Loader,
    kept: Corpus,
    write_case: WriteCase,
    corpus_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_case(minimal_case("c2", agent="nobody"))
    with pytest.raises(CorpusError, match="unknown agent 'nobody'"):
        loader.load(corpus_dir)
    write_case(minimal_case("c2"))
    seen = _count_checks(monkeypatch)
    assert loader.load(corpus_dir) == kept
    assert seen == []  # the bytes of the last clean load again: the whole entry answers


def test_a_corrupt_entry_is_a_miss(
    loader: Loader, write_case: WriteCase, corpus_dir: Path, cache: Path
) -> None:
    write_case(minimal_case("c"))
    first = loader.load(corpus_dir)
    (entry,) = cache.iterdir()
    entry.write_bytes(b"\x93not msgpack at all")
    assert loader.load(corpus_dir) == first
    assert cache_entry.unseal(entry.read_bytes()) is not None  # rewritten whole, sealed


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
    from eval_core._plugins.plugins import field_schema_hash, kind_schema_hash, load_plugins

    derived = load_plugins()
    want = {name: kind_schema_hash(spec) for name, spec in derived.kinds.items()}
    want.update({f"field:{n}": field_schema_hash(f) for n, f in derived.fields.items()})
    assert derived.schemas() == want  # derived, then stored
    (stored,) = (cache.parent / "schemas").iterdir()
    assert load_plugins().schemas() == want  # read back
    stored.write_text('{"output_contains": 7}')
    assert load_plugins().schemas() == want  # a damaged entry is derived again


def test_only_the_newest_entries_are_kept(tmp_path: Path) -> None:
    for n in range(5):
        (tmp_path / f"{n}.bin").write_bytes(b"x")
        os.utime(tmp_path / f"{n}.bin", ns=(n * 10**9, n * 10**9))
    checked.prune(tmp_path, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2.bin", "3.bin", "4.bin"]


_EDITS = st.lists(
    st.tuples(st.sampled_from(["write", "remove"]), st.integers(0, 4), st.integers(0, 3)),
    min_size=1,
    max_size=6,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(edits=_EDITS)
def test_any_edits_load_as_a_cold_load_does(
    edits: list[tuple[str, int, int]],
    loader: Loader,
    write_case: WriteCase,
    corpus_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the cache kept from earlier loads (of earlier examples too), a load after any
    edits is the cold load: the same Corpus, or the same refusal."""
    for old in corpus_dir.glob("*.json"):
        old.unlink()
    write_case(minimal_case("c0"))
    for action, n, variant in edits:
        if action == "remove":
            (corpus_dir / f"c{n}.json").unlink(missing_ok=True)
        elif variant == 3:
            write_case(minimal_case(f"c{n}", agent="nobody"))  # refused
        else:
            write_case(minimal_case(f"c{n}", trials=variant + 1))

        def outcome() -> object:
            try:
                return loader.load(corpus_dir)
            except CorpusError as refused:
                return sorted(str(p) for p in refused.problems)

        warm = outcome()
        with monkeypatch.context() as off:
            off.setenv("EVAL_CACHE", "off")
            assert outcome() == warm


def test_an_entry_whose_digests_are_not_the_files_cases_is_not_reused(
    loader: Loader,
    write_case: WriteCase,
    corpus_dir: Path,
    cache: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_case(minimal_case("c0"))
    write_case(minimal_case("c1"))
    write_case(minimal_case("c2"))
    loader.load(corpus_dir)
    (path,) = cache.iterdir()
    entry = msgspec.msgpack.decode(cache_entry.unseal(path.read_bytes()) or b"", type=checked.Entry)
    first, second, third = entry.files
    damaged = msgspec.structs.replace(
        entry,
        files={
            first: entry.files[second],  # another file's Case
            second: [*entry.files[second], entry.files[third][0]],  # one Case too many
            third: entry.files[third],  # its own: the one file still vouched for
        },
    )
    path.write_bytes(cache_entry.seal(msgspec.msgpack.encode(damaged)) or b"")
    write_case(minimal_case("c3"))  # a changed Corpus: only the per-file reuse could answer
    seen = _count_checks(monkeypatch)
    assert [c.id for c in loader.load(corpus_dir).cases] == ["c0", "c1", "c2", "c3"]
    assert sorted(seen) == ["c0", "c1", "c3"]  # nothing taken from the damaged digests
