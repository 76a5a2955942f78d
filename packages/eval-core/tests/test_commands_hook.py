"""Sub-commands from plug-ins (entry-point group ``eval.commands``): added before the arguments
are parsed; a broken one is one line naming its distribution and entry point, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def site_with(tmp_path: Path, entry: str, module: str = "", source: str = "") -> Path:
    site = tmp_path / "site"
    info = site / "eval_hello-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: eval-hello\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[eval.commands]\nhello = {entry}\n")
    if module:
        (site / f"{module}.py").write_text(source)
    return site


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "eval_core", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


HELLO = '''
import typer
from eval_core.hookspecs import hookimpl


def hello(name: str) -> None:
    """Say hello."""
    typer.echo(f"hello {name}")


@hookimpl
def eval_commands(app):
    app.command("hello")(hello)
'''


def test_a_command_plugin_adds_its_sub_command(tmp_path: Path) -> None:
    result = run(site_with(tmp_path, "eval_hello", "eval_hello", HELLO), "hello", "Ana")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello Ana\n"


def test_a_broken_command_plugin_is_one_line_naming_it(tmp_path: Path) -> None:
    result = run(site_with(tmp_path, "eval_hello_missing"), "--help")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "eval: command plug-in eval-hello is broken: entry point 'hello' (eval_hello_missing) "
        "failed to load: ModuleNotFoundError"
    )
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


RAISING = """
from eval_core.hookspecs import hookimpl


@hookimpl
def eval_commands(app):
    raise RuntimeError("no room for hello")
"""

MISSPELT = """
from eval_core.hookspecs import hookimpl


@hookimpl
def eval_command(app):
    pass
"""


def test_a_command_plugin_whose_hook_raises_is_one_line_naming_it_and_its_line(
    tmp_path: Path,
) -> None:
    result = run(site_with(tmp_path, "eval_hello", "eval_hello", RAISING), "--help")
    assert result.returncode == 2
    assert result.stderr == (
        "eval: plug-in eval-hello 0.1.0: eval_commands raised RuntimeError: no room for hello "
        "(at eval_hello.py:7)\n"
    )
    traced = run(site_with(tmp_path / "again", "eval_hello", "eval_hello", RAISING), "--traceback")
    assert traced.returncode == 2
    assert 'eval_hello.py", line 7, in eval_commands' in traced.stderr


def test_a_command_plugin_with_a_misspelt_hook_is_refused_naming_it(tmp_path: Path) -> None:
    result = run(site_with(tmp_path, "eval_hello", "eval_hello", MISSPELT), "--help")
    assert result.returncode == 2
    assert result.stderr == (
        "eval: command plug-in eval-hello 0.1.0 is refused: it implements 'eval_command', "
        "which is not a hook (eval_commands is)\n"
    )
