"""The L3 tier's scratch directory: on RAM when the machine has it, the user's TMPDIR first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from eval_host_agent_runtime import scratch
from eval_host_agent_runtime.scratch import scratch_dir


def test_the_users_tmpdir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)  # tempfile reads TMPDIR again
    made = scratch_dir("eval-l3-")
    assert made.parent == tmp_path
    assert made.name.startswith("eval-l3-")


def test_ram_is_used_when_writable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ram = tmp_path / "shm"
    ram.mkdir()
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(scratch, "RAM", ram)
    made = scratch_dir("eval-l3-")
    assert made.parent == ram and made.is_dir()
    shutil.rmtree(made)


def test_without_ram_it_is_the_usual_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)
    monkeypatch.setattr(scratch, "RAM", tmp_path / "absent")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    made = scratch_dir("eval-l3-")
    assert made.parent == tmp_path and made.is_dir()
