"""Adding a package is one folder: the root's lists (uv's sources and what the root installs)
agree with ``packages/*``, and ``scripts/workspace.py`` writes what a new folder lacks."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from scripts.workspace import ROOT, _installed, packages, problems, synced

NEW = "eval-expectations-acme"


def test_the_root_lists_agree_with_packages() -> None:
    assert problems() == [], "run `uv run python scripts/workspace.py`:\n" + "\n".join(problems())


def test_the_real_root_is_already_synced() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert synced(text, packages(), _installed(ROOT, tomllib.loads(text))) == text


def _tree(tmp_path: Path) -> Path:
    """A copy of the workspace's lists (root, each package's and example's pyproject.toml)."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for pyproject in [
        *ROOT.glob("packages/*/pyproject.toml"),
        *ROOT.glob("examples/*/pyproject.toml"),
    ]:
        copy = tmp_path / pyproject.relative_to(ROOT)
        copy.parent.mkdir(parents=True)
        shutil.copy(pyproject, copy)
    return tmp_path


def test_a_new_folder_is_named_then_synced_by_the_script(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "packages" / "acme").mkdir()
    (root / "packages" / "acme" / "pyproject.toml").write_text(f'[project]\nname = "{NEW}"\n')
    assert problems(root) == [
        f"packages/acme ({NEW}): not in [tool.uv.sources]",
        f"packages/acme ({NEW}): not installed by the root (dependencies or a group)",
    ]
    pyproject = root / "pyproject.toml"
    before = pyproject.read_text(encoding="utf-8")
    after = synced(before, packages(root), _installed(root, tomllib.loads(before)))
    pyproject.write_text(after, encoding="utf-8")
    assert problems(root) == []
    config = tomllib.loads(after)
    assert config["tool"]["uv"]["sources"][NEW] == {"workspace": True}
    assert config["project"]["dependencies"][-1] == NEW
    # The rest of the file (comments, the other lists) is untouched: only two lines were added.
    assert sorted(set(after.splitlines()) - set(before.splitlines())) == [
        f'    "{NEW}",',
        f"{NEW} = {{ workspace = true }}",
    ]


def test_a_source_naming_no_package_is_named(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    shutil.rmtree(root / "packages" / "eval-report")
    assert "[tool.uv.sources] eval-report: no such package" in problems(root)


def test_a_failed_step_is_one_line_naming_it_never_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step that exits non-zero (here `eval lock` in an example whose Node tools were never
    built) is one line saying which step failed where, and what to do (``main`` prints it and
    exits 2), never a traceback."""
    import sys

    from scripts import workspace

    example = tmp_path / "examples" / "ts-agent"
    example.mkdir(parents=True)
    (example / "package.json").write_text("{}")
    monkeypatch.setattr(workspace, "ROOT", tmp_path)
    step = [sys.executable, "-c", "raise SystemExit(2)"]
    with pytest.raises(workspace.StepFailedError) as failed:
        workspace._run(step, cwd=example)
    assert str(failed.value) == (
        f"`{' '.join(step)}` failed in examples/ts-agent (its setup first: `npm ci` there); "
        "run this script again"
    )
