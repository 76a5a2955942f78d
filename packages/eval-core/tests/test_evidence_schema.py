"""The Evidence schema digest a trial log's header records is kept in the cache directory:
what is kept is what a fresh derivation says, and a damaged entry is derived again."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval_core._case.evidence import Evidence
from eval_core._recording.transcript import evidence_schema, schema_hash
from eval_core._util import cache_entry


def test_the_kept_digest_is_the_derived_one_and_a_damaged_one_is_derived_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    derived = schema_hash(Evidence)
    assert evidence_schema() == derived
    (kept,) = (tmp_path / "schemas").glob("evidence-*")
    assert cache_entry.unseal(kept.read_bytes()) == derived.encode()
    assert evidence_schema() == derived  # read back
    kept.write_text("not a digest", encoding="ascii")
    assert evidence_schema() == derived
    assert cache_entry.unseal(kept.read_bytes()) == derived.encode()  # written again


def test_with_the_caches_off_nothing_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("EVAL_CACHE", "off")
    assert evidence_schema() == schema_hash(Evidence)
    assert not (tmp_path / "schemas").exists()
