"""Output paths: every file a command will write, checked before the work that fills it.

A Sweep may be paid for; its outputs (``--save``, ``--save-dir``, ``--junit-xml``, the trial
log) are therefore checked before the first Trial, and ``eval schema -o`` and ``eval lock``
check theirs before writing. The rules:

- the target, if it exists, is a regular file: a directory, a symbolic link, a named pipe, a
  device or a socket is refused (an atomic write would replace it with a regular file);
- a new trial log (``--log`` or the default) must not exist at all (it is created exclusively);
- the nearest existing ancestor of the target is a writable directory (missing directories in
  between are created when the file is written);
- no two outputs name the same file, and no output names an input of the same command (the
  ``--baseline`` compared with, the models file, the log being resumed);
- nothing is written under ``baselines/``: only ``--promote`` writes a Baseline there;
- nothing is written where a protected Corpus reads (its Case files, its Soul, its
  ``eval.lock``: ``_util.layout``), where an output would overwrite an input or be read as one
  next time; a trial log or a page beside the Cases is fine.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

import msgspec

from eval_core._util.input_files import kind_of
from eval_core._util.layout import read_by_corpus


class OutputRefused(Exception):  # noqa: N818 - it names an outcome
    """An output path that cannot be written: the message names the flag, the path and why."""


class Output(msgspec.Struct, frozen=True):
    flag: str  # how the user named it: "--save", "--save-dir DIR/<model>.json", ...
    path: Path
    fresh: bool = False  # must not exist yet (a new trial log)


def _canonical(path: Path) -> Path:
    """``path`` made absolute with its existing directories resolved (links followed)."""
    absolute = Path(os.path.abspath(path))
    parent = absolute.parent
    missing: list[str] = []
    while not os.path.exists(parent) and parent != parent.parent:  # False on any error
        missing.append(parent.name)
        parent = parent.parent
    resolved = parent.resolve()
    for name in reversed(missing):
        resolved = resolved / name
    return resolved / absolute.name


def check_file(output: Output) -> None:
    """Refuse a target that is not (or cannot become) a regular file we may write."""
    path, flag = output.path, output.flag
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    except NotADirectoryError:
        mode = None  # a file stands where a directory should: the ancestor check names it
    except OSError as exc:
        raise OutputRefused(f"{flag} {path}: cannot be checked: {exc.strerror or exc}") from None
    if mode is not None:
        if stat.S_ISLNK(mode):
            raise OutputRefused(
                f"{flag} {path}: a symbolic link: refusing to replace it (name its target)"
            )
        if not stat.S_ISREG(mode):
            raise OutputRefused(f"{flag} {path}: {kind_of(mode)}")
        if output.fresh:
            raise OutputRefused(
                f"{flag} {path}: already exists: a new trial log never overwrites a file "
                "(continue it with --resume, or choose another path)"
            )
    check_directory_chain(flag, path, path.parent)


def check_directory_chain(flag: str, path: Path, directory: Path) -> None:
    """The nearest existing ancestor of ``directory`` is a directory we can write in."""
    ancestor = Path(os.path.abspath(directory))
    while not os.path.lexists(ancestor) and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputRefused(f"{flag} {path}: {ancestor} is a file, not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputRefused(f"{flag} {path}: the directory {ancestor} is not writable")


def check_directory(flag: str, directory: Path) -> None:
    """``--save-dir``: an existing directory, or one that can be made."""
    try:
        mode = os.stat(directory).st_mode
    except (FileNotFoundError, NotADirectoryError):
        check_directory_chain(flag, directory, directory)
        return
    except OSError as exc:
        raise OutputRefused(f"{flag} {directory}: cannot be checked: {exc.strerror}") from None
    if not stat.S_ISDIR(mode):
        what = "a regular file" if stat.S_ISREG(mode) else kind_of(mode).split(",")[0]
        raise OutputRefused(f"{flag} {directory}: not a directory ({what})")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputRefused(f"{flag} {directory}: the directory is not writable")


def check_all(
    outputs: Iterable[Output],
    inputs: Iterable[tuple[str, Path]] = (),
    root: Path = Path("."),
    protected: Iterable[tuple[str, Path]] = (),
    baselines_folder: Path | None = None,
) -> None:
    """Each output on its own, then no collisions, then nothing under the Baselines folder
    (``baselines_folder``, else ``root``'s ``baselines/``) or where a ``protected`` Corpus
    (named, its root directory) reads."""
    seen: dict[Path, str] = {}
    for name, path in inputs:
        seen.setdefault(_canonical(path), name)
    folder = baselines_folder if baselines_folder is not None else root / "baselines"
    baselines = _canonical(folder / "x").parent
    trees = [(name, _canonical(directory / "x").parent) for name, directory in protected]
    for output in outputs:
        where = _canonical(output.path)
        for name, tree in trees:
            if read_by_corpus(tree, where):
                raise OutputRefused(
                    f"{output.flag} {output.path}: inside {name} ({tree}), where it would be "
                    "read as an input: an output never goes among the Sweep's inputs"
                )
        check_file(output)
        if baselines in where.parents:
            raise OutputRefused(
                f"{output.flag} {output.path}: inside {folder}: only --promote "
                "writes a Baseline there"
            )
        if where in seen:
            raise OutputRefused(
                f"{output.flag} {output.path}: the same file as {seen[where]}: each output "
                "needs its own path"
            )
        seen[where] = f"{output.flag} {output.path}"
