"""Atomic writes leave the file with the mode a plain write would, not mkstemp's 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from eval_core._util.atomic import umask, write_atomic


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "deep" / "card.json"
    write_atomic(target, b"{}\n")
    assert target.read_bytes() == b"{}\n"
    assert mode(target) == 0o644
    os.umask(0o077)
    private = tmp_path / "private.json"
    write_atomic(private, b"{}\n")
    assert mode(private) == 0o600
    assert not [p for p in tmp_path.rglob("*.tmp")]  # no temporary file left behind


def test_a_replaced_file_keeps_its_own_mode(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "card.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new" and mode(target) == 0o640


def test_the_umask_is_read_without_changing_it(umask_022: None) -> None:
    assert umask() == 0o022
    assert umask() == 0o022  # unchanged by reading it
