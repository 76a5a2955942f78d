"""Where `eval report` writes, and how: by default under ``scorecards/`` (which git ignores, so
a Sweep after a report still records a clean tree and ``--promote`` is not refused), with the
mode any file the user writes gets (the umask honoured, not a temporary file's 0600), and
atomically (the old page or the new one, never half, no temporary file left behind)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from eval_core._util.provenance import is_clean, tree_commit
from eval_report.html import write_report
from report_fixtures import Matrix
from tests.conftest import ROOT
from tests.scratch_git import git


def _report(*args: str | Path) -> int:
    """``eval report ARGS`` in this process, as the command line runs it, under umask 027."""
    from eval_cli.cli import invoke

    previous = os.umask(0o027)
    try:
        return invoke(["report", *map(str, args)])
    finally:
        os.umask(previous)


def test_the_default_output_is_ignored_by_git_and_written_with_the_umask(
    matrix: Matrix,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = tmp_path / "checkout"  # a clean checkout with the project's own .gitignore
    checkout.mkdir()
    shutil.copy(ROOT / ".gitignore", checkout / ".gitignore")
    git(checkout, "init", "-q")
    git(checkout, "add", ".gitignore")
    git(checkout, "commit", "-q", "-m", "start")
    assert is_clean(tree_commit(checkout))
    monkeypatch.chdir(checkout)
    assert _report(*matrix.logs) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("wrote scorecards/report.html  (3 Cases, 6 Trials")
    page = checkout / "scorecards" / "report.html"
    assert stat.S_IMODE(page.stat().st_mode) == 0o640  # 0666 less the umask 027
    assert git(checkout, "status", "--porcelain") == ""
    assert is_clean(tree_commit(checkout))  # what the next Sweep records: no -dirty
    inner = checkout / "sub"  # from deeper in the checkout: under the project's root still
    inner.mkdir()
    monkeypatch.chdir(inner)
    assert _report(matrix.cards[0]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith(f"wrote {page}  (3 Cases, 3 Trials")
    assert not (inner / "scorecards").exists()
    assert git(checkout, "status", "--porcelain") == ""


def test_an_output_is_replaced_atomically_and_keeps_its_own_mode(
    matrix: Matrix, tmp_path: Path
) -> None:
    out = tmp_path / "r.html"
    previous = os.umask(0o022)
    try:
        write_report(matrix.cards, out, [])
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        out.chmod(0o604)  # a mode the user chose survives the next write
        inode = out.stat().st_ino
        write_report(matrix.cards, out, [])
    finally:
        os.umask(previous)
    assert stat.S_IMODE(out.stat().st_mode) == 0o604
    assert out.stat().st_ino != inode  # a new file renamed over the old: never half-written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]  # no temporary left
