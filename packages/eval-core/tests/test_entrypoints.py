"""The entry-point reader agrees with importlib.metadata, and sees what is installed later."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points as metadata_entry_points
from pathlib import Path

import pytest

from eval_core._util.entrypoints import entry_points


@pytest.mark.parametrize("group", ["eval.plugins", "eval.commands", "eval.executors"])
def test_agrees_with_importlib_metadata(group: str) -> None:
    ours = [(e.name, e.value, e.distribution, e.version) for e in entry_points(group)]
    theirs = sorted(
        (e.name, e.value, e.dist.metadata["Name"], e.dist.version)
        for e in metadata_entry_points(group=group)
        if e.dist is not None
    )
    assert ours == theirs


def _install(site: Path, dist: str, version: str, body: str) -> None:
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\nName: not-a-header\n"
    )
    (info / "entry_points.txt").write_text(body)


def test_a_later_install_is_seen_and_the_first_on_the_path_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (
        "# a comment\n[console_scripts]\nx = y:z\n\n"
        "[eval.commands]\n ahoy = acme_mod:thing.attr [extra]\n"
    )
    _install(tmp_path / "a", "acme-ahoy", "1.0", body)
    _install(tmp_path / "b", "acme_ahoy", "2.0", body.replace("acme_mod", "shadowed"))
    before = entry_points("eval.commands")
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    monkeypatch.syspath_prepend(str(tmp_path / "a"))
    found = [e for e in entry_points("eval.commands") if e.distribution.startswith("acme")]
    assert [(e.name, e.value, e.distribution, e.version) for e in found] == [
        ("ahoy", "acme_mod:thing.attr [extra]", "acme-ahoy", "1.0")
    ]
    assert entry_points("console_scripts") == []  # only the eval. groups are read
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not p.startswith(str(tmp_path))])
    assert entry_points("eval.commands") == before


def test_load_walks_the_attribute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "acme_walk.py").write_text("class thing:\n    attr = 42\n")
    _install(tmp_path, "acme-walk", "1.0", "[eval.plugins]\nw = acme_walk:thing.attr [x]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    (ep,) = [e for e in entry_points("eval.plugins") if e.distribution == "acme-walk"]
    assert ep.load() == 42
