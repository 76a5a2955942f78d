"""``eval --help`` is printed from its kept rendering only while everything it was made from is
unchanged: a new command plug-in, another terminal width or a damaged file render it anew."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = (
    "import sys\nsys.argv = ['eval', *sys.argv[1:]]\n"
    "try:\n    from eval_cli.entry import main\n    main()\n"
    "except SystemExit as exit:\n"
    "    sys.stderr.write(f'exit={exit.code} parser={\"typer\" in sys.modules}')\n"
)

PLUGIN = """
from eval_core._plugins.hookspecs import hookimpl


@hookimpl
def eval_commands(commands):
    commands.add("hello", help="Say hello.", run=lambda args: 0)
"""


def helped(cache: Path, *argv: str, **env: str) -> tuple[str, str]:
    """``eval ARGV``'s stdout and how it ended (``exit=CODE parser=BOOL``)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "EVAL_CACHE_DIR": str(cache), "COLUMNS": "80", **env},
        timeout=60,
        check=True,
    )
    return done.stdout, done.stderr.splitlines()[-1]


def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    info = root / "eval_hello-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: eval-hello\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[eval.commands]\nhello = eval_hello\n")
    (root / "eval_hello.py").write_text(PLUGIN)
    return root


def test_the_second_help_is_the_kept_text_and_imports_no_parser(tmp_path: Path) -> None:
    first, how = helped(tmp_path, "--help")
    assert how == "exit=0 parser=True" and first.startswith("Usage: eval ")
    again, how = helped(tmp_path, "--help")
    assert (again, how) == (first, "exit=0 parser=False")
    short, how = helped(tmp_path, "-h")  # its own words: rendered, then kept in their place
    assert (short, how) == (first, "exit=0 parser=True")


def test_a_new_command_plugin_or_another_width_renders_anew(tmp_path: Path) -> None:
    plain, _ = helped(tmp_path, "--help")
    with_plugin, how = helped(tmp_path, "--help", PYTHONPATH=str(site(tmp_path)))
    assert how == "exit=0 parser=True" and "hello" in with_plugin and "hello" not in plain
    wide, how = helped(tmp_path, "--help", COLUMNS="150")
    fresh, _ = helped(tmp_path, "--help", COLUMNS="150", EVAL_CACHE="off")
    assert (wide, how) == (fresh, "exit=0 parser=True") and wide != plain


def test_a_damaged_kept_text_is_rendered_anew_and_caches_off_keep_nothing(
    tmp_path: Path,
) -> None:
    plain, _ = helped(tmp_path, "--help")
    (tmp_path / "help.txt").write_bytes(b"\xff\xfe not a kept rendering")
    assert helped(tmp_path, "--help") == (plain, "exit=0 parser=True")
    (tmp_path / "help.txt").write_text("['--help']\n\nUsage: not this")
    assert helped(tmp_path, "--help") == (plain, "exit=0 parser=True")
    off = tmp_path / "off"
    assert helped(off, "--help", EVAL_CACHE="off") == (plain, "exit=0 parser=True")
    assert not off.exists()


def test_a_help_kept_at_200_columns_is_not_printed_at_40(tmp_path: Path) -> None:
    wide, _ = helped(tmp_path, "--help", COLUMNS="200")
    narrow, how = helped(tmp_path, "--help", COLUMNS="40")
    fresh, _ = helped(tmp_path / "off", "--help", COLUMNS="40", EVAL_CACHE="off")
    assert narrow == fresh and narrow != wide and how == "exit=0 parser=True"
    assert max(map(len, narrow.splitlines())) <= 50
    again, how = helped(tmp_path, "--help", COLUMNS="150")  # 150 renders as 200 did: kept
    assert again == helped(tmp_path / "off", "--help", COLUMNS="150", EVAL_CACHE="off")[0]


def test_a_kept_help_that_is_a_pipe_or_a_link_to_dev_zero_renders_anew(tmp_path: Path) -> None:
    plain, _ = helped(tmp_path / "off", "--help", EVAL_CACHE="off")
    tmp_path.mkdir(exist_ok=True)
    os.mkfifo(tmp_path / "help.txt")
    assert helped(tmp_path, "--help") == (plain, "exit=0 parser=True")  # never blocks
    os.unlink(tmp_path / "help.txt")
    (tmp_path / "help.txt").symlink_to("/dev/zero")
    assert helped(tmp_path, "--help") == (plain, "exit=0 parser=True")


def test_an_edited_core_renders_anew(tmp_path: Path) -> None:
    """The kept text is keyed by the CLI's and the core's own source files: after an upgrade
    (here, a copy of both first on the path, the app's help edited) the new text is printed,
    never the old."""
    import shutil

    import eval_cli
    import eval_core

    core = tmp_path / "core"
    for package in (eval_core, eval_cli):
        shutil.copytree(
            Path(package.__file__).parent,
            core / package.__name__,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    cache = tmp_path / "cache"
    path = str(core)
    first, how = helped(cache, "--help", PYTHONPATH=path)
    assert how == "exit=0 parser=True" and "Offline eval harness" in first
    app = core / "eval_cli" / "app.py"
    text = app.read_text()
    assert "Offline eval harness for tool-using LLM agents." in text
    app.write_text(text.replace("Offline eval harness", "Upgraded eval harness"))
    again, how = helped(cache, "--help", PYTHONPATH=path)
    assert how == "exit=0 parser=True" and "Upgraded eval harness" in again
