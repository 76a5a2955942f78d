"""A Scorecard of schema 2 (``caches``, ``dropped``) beside one saved before them (schema 1):
``eval compare`` and ``eval report`` read both, and the new fields read as empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval_cli.cli import invoke
from eval_core._running.scorecard import decode_json
from eval_core._sweeping.render import render_text

from .conftest import minimal_case


def test_an_older_scorecard_is_still_read(
    corpus_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (corpus_dir / "c.json").write_text(json.dumps(minimal_case("c")))
    new = tmp_path / "new.json"
    assert invoke(["sweep", str(corpus_dir), "--unlocked", "-q", "--save", str(new)]) == 0
    saved = json.loads(new.read_text())
    assert saved["schemaVersion"] == 2 and "caches" in saved and "dropped" in saved
    old = {k: v for k, v in saved.items() if k not in ("caches", "dropped")}
    old["schemaVersion"] = 1
    before = tmp_path / "old.json"
    before.write_text(json.dumps(old))
    caches = "  ".join(f"{name}={use}" for name, use in saved["caches"].items())
    assert f"Caches  {caches}" in render_text(decode_json(new.read_bytes())).splitlines()
    assert {"checked-corpus", "agent-runtime-soul", "manifests"} <= set(saved["caches"])
    card = decode_json(before.read_bytes())
    assert (card.schema_version, card.caches, card.dropped) == (1, {}, {})
    assert not any(
        line.startswith(("Caches", "Kept off")) for line in render_text(card).splitlines()
    )
    capsys.readouterr()
    assert invoke(["compare", str(before), str(new)]) == 0
    assert "1 passed before, 1 passed after" in capsys.readouterr().out
    assert invoke(["report", str(before), "-o", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").stat().st_size > 0
