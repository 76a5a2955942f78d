"""Outputs that cannot be written (issue 45, class 2): a closed stdout or stderr, stdout on a
full device, a path past PATH_MAX and an empty ``--option=`` are one line on the stream that
still works and a defined exit code (2), for every command; never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import minimal_case

EVAL = str(Path(sys.executable).parent / "eval")
LOST = "eval: stdout cannot be written"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    from .conftest import SOUL

    directory = tmp_path_factory.mktemp("streams") / "corpus"
    directory.mkdir()
    shutil.copytree(SOUL, directory / "soul")
    (directory / "c.json").write_text(json.dumps(minimal_case("c")))
    return directory


def _run(
    argv: list[str], cwd: Path, stdout: object = subprocess.DEVNULL, close: int | None = None
) -> tuple[int, str, bytes]:
    """``eval ARGV``: its exit code, stderr and stdout; ``close`` is a descriptor closed
    before it starts (1: stdout, 2: stderr)."""
    done = subprocess.run(
        [EVAL, *argv],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        env={**os.environ, "EVAL_CACHE_DIR": str(cwd / "cache")},
        timeout=120,
        check=False,
        preexec_fn=None if close is None else (lambda: os.close(close)),
    )
    return done.returncode, done.stderr.decode(), done.stdout or b""


COMMANDS = [["--help"], ["schema"], ["plugins"], ["check", "{corpus}"], ["sweep", "{corpus}"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
@pytest.mark.parametrize("where", ["closed", "full"])
def test_a_stdout_that_cannot_be_written_is_one_line_and_exit_2(
    corpus: Path, argv: list[str], where: str
) -> None:
    args = [a.format(corpus=corpus) for a in argv]
    args += ["--unlocked"] if len(argv) > 1 else []
    if where == "full":
        with open("/dev/full", "w") as full:
            code, err, _ = _run(args, corpus.parent, full)
    else:
        code, err, _ = _run(args, corpus.parent, close=1)
    assert "Traceback" not in err, err
    assert code == 2, err
    assert err.rstrip().splitlines()[-1].startswith(LOST), err


def test_a_closed_stderr_keeps_the_sweeps_exit_code(corpus: Path) -> None:
    code, _, out = _run(["sweep", str(corpus), "--unlocked"], corpus.parent, subprocess.PIPE, 2)
    assert code == 0 and b"CLEARED" in out


@pytest.mark.parametrize("flag", ["--save=", "--baseline=", "--case=", "--host="])
def test_an_empty_option_value_is_refused_in_one_line(corpus: Path, flag: str) -> None:
    code, err, _ = _run(["sweep", str(corpus), flag], corpus.parent)
    assert code == 2 and err.strip() == (
        f"eval: {flag[:-1]}: an empty value; give it one (or leave {flag[:-1]} out)"
    )


def test_paths_past_path_max_are_refused_with_their_reason(corpus: Path) -> None:
    long = "/tmp/" + "/".join(["b" * 200] * 25)  # 5 KB: past PATH_MAX (4096)
    for argv in (["check", long], ["sweep", str(corpus), "--unlocked", "--save", long]):
        code, err, _ = _run(argv, corpus.parent)
        assert code == 2 and "Traceback" not in err, err
        assert "File name too long" in err
