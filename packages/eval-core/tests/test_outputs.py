"""Output paths are checked before any work: regular files only, no collisions, no Baselines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from eval_core._util.outputs import Output, OutputRefused, check_all, check_directory


def refused(tmp_path: Path, *outputs: Output, inputs: tuple[tuple[str, Path], ...] = ()) -> str:
    with pytest.raises(OutputRefused) as caught:
        check_all(outputs, inputs, root=tmp_path)
    return str(caught.value)


def test_a_new_file_under_missing_directories_is_fine(tmp_path: Path) -> None:
    check_all([Output("--save", tmp_path / "a" / "b" / "card.json")], root=tmp_path)
    (tmp_path / "old.json").write_text("{}")
    check_all([Output("--save", tmp_path / "old.json")], root=tmp_path)  # replaced atomically


def test_non_regular_targets_are_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    (tmp_path / "file").write_text("x")
    for target, words in (
        (tmp_path, "a directory"),
        (tmp_path / "pipe", "named pipe"),
        (tmp_path / "link.json", "a symbolic link"),
        (Path("/dev/null"), "a device"),
        (tmp_path / "file" / "card.json", "is a file, not a directory"),
    ):
        assert words in refused(tmp_path, Output("--save", target))


def test_a_new_trial_log_must_not_exist(tmp_path: Path) -> None:
    (tmp_path / "log.jsonl").write_text("x")
    assert "already exists" in refused(tmp_path, Output("--log", tmp_path / "log.jsonl", True))


def test_two_outputs_naming_one_file_are_refused(tmp_path: Path) -> None:
    same = tmp_path / "x.json"
    message = refused(
        tmp_path, Output("--log", same, True), Output("--save", tmp_path / "." / same.name)
    )
    assert "the same file as --log" in message
    message = refused(
        tmp_path,
        Output("--save", tmp_path / "b.json"),
        inputs=(("the --baseline", tmp_path / "b.json"),),
    )
    assert "the same file as the --baseline" in message


def test_nothing_is_written_under_baselines(tmp_path: Path) -> None:
    for target in ("baselines/m.json", "baselines/red-team/m.json", "baselines/other.json"):
        assert "only --promote writes" in refused(tmp_path, Output("--save", tmp_path / target))


def test_save_dir_must_be_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputRefused, match=r"not a directory \(a regular file\)"):
        check_directory("--save-dir", tmp_path / "file")
    check_directory("--save-dir", tmp_path / "new")
