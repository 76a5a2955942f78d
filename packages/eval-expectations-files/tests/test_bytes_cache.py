"""The fixture bytes cache: the bytes synthesis makes, kept by what makes them, verified on use."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._util.cache_entry import seal, unseal
from eval_core.kinds import read_cache_entry
from eval_expectations_files import bytes_cache, synthesis
from eval_expectations_files.fixtures import CaseFile, PdfFixture, _synthesise


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    _synthesise.cache_clear()
    where = bytes_cache.directory()  # plugins/fixtures/<the interpreter's and core's tag>
    assert where is not None and where.parent == tmp_path / "plugins" / "fixtures"
    return where


def test_cached_bytes_are_the_synthesised_bytes(cache_dir: Path) -> None:
    file = CaseFile(
        file_id="p", media_type="application/pdf", name="p.pdf", content="Invoice 1450 EUR.",
        pdf=PdfFixture(variant="text"),
    )  # fmt: skip
    made = file.fixture_bytes()
    assert made == synthesis.pdf_bytes("text", "Invoice 1450 EUR.")
    [entry] = cache_dir.iterdir()
    assert read_cache_entry(entry, 1 << 30) == made  # sealed
    assert entry.read_bytes().endswith(made)
    _synthesise.cache_clear()
    assert file.fixture_bytes() == made  # read back, not made again


def test_a_damaged_entry_is_made_again(cache_dir: Path) -> None:
    calls: list[int] = []

    def make() -> bytes:
        calls.append(1)
        return b"%PDF-1.7 fresh"

    assert bytes_cache.cached({"k": 1}, make) == b"%PDF-1.7 fresh"
    [entry] = cache_dir.iterdir()
    entry.write_bytes(entry.read_bytes()[:-3] + b"000")  # the digest no longer matches it
    assert bytes_cache.cached({"k": 1}, make) == b"%PDF-1.7 fresh"
    assert len(calls) == 2
    assert bytes_cache.cached({"k": 1}, make) == b"%PDF-1.7 fresh" and len(calls) == 2


def test_the_key_covers_the_generators(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = bytes_cache.key({"k": 1})
    monkeypatch.setattr(bytes_cache, "generator", lambda: "fpdf2=99")
    assert bytes_cache.key({"k": 1}) != before


def test_plain_content_never_reaches_the_cache(cache_dir: Path) -> None:
    memo = CaseFile(file_id="m", media_type="text/plain", name="m.txt", content="Closes at 15:00.")
    assert memo.fixture_bytes() == b"Closes at 15:00."
    assert not cache_dir.exists()


def test_another_interpreter_or_another_generator_is_a_miss(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key holds the interpreter (read as each key is made) and the generator: this
    package's code and every document library's version (the end-to-end test edits a copy of
    the package: tests/test_cache_keys.py)."""
    import sys

    from eval_core._util import cache_use

    def use() -> str:
        cache_use.forget()
        bytes_cache.cached({"k": "interpreter"}, lambda: b"%PDF-1.7 made")
        return cache_use.used()["fixtures"]

    assert (use(), use()) == ("miss", "hit")
    assert "code=" in bytes_cache.generator() and "fpdf2=" in bytes_cache.generator()
    with monkeypatch.context() as patched:
        patched.setattr(sys, "executable", sys.executable + "-another")
        assert (use(), use()) == ("miss", "hit")
    assert use() == "hit"  # the first interpreter's entry is still there


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.one_of(st.binary(max_size=300), st.builds(lambda b: seal(b) or b"", st.binary())))
def test_any_bytes_as_a_kept_fixture_are_a_miss_or_this_users_own_entry(
    cache_dir: Path, data: bytes
) -> None:
    """The fixtures' fuzz target: whatever bytes stand as an entry, the fixture is made again
    or is what this user's sealed entry holds (only its own key seals one), never an error."""
    made = b"%PDF-1.7 made"
    bytes_cache.cached({"k": "fuzz"}, lambda: made)
    for entry in cache_dir.iterdir():
        entry.write_bytes(data)
    assert bytes_cache.cached({"k": "fuzz"}, lambda: made) in (made, unseal(data))
