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
        [sys.executable, "-m", "eval_cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


HELLO = """
from eval_core._plugins.commands import CommandRefused
from eval_core._plugins.hookspecs import hookimpl


def hello(args):
    if args.name == "nobody":
        raise CommandRefused(f"eval hello: nobody to greet\\nsecond line", 3)
    if args.name == "boom":
        return {}["boom"]
    if args.name == "maybe":
        return "yes"
    print(f"hello {args.name} x{args.times}")
    return 1 if args.name == "grumpy" else None


@hookimpl
def eval_commands(commands):
    parser = commands.add("hello", help="Say hello.", run=hello)
    parser.add_argument("name", metavar="NAME", help="Whom to greet.")
    parser.add_argument("--times", type=int, default=1, metavar="N", help="How often.")
"""


def test_a_command_plugin_adds_its_sub_command(tmp_path: Path) -> None:
    site = site_with(tmp_path, "eval_hello", "eval_hello", HELLO)
    result = run(site, "hello", "Ana", "--times", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello Ana x2\n"
    assert run(site, "hello", "grumpy").returncode == 1  # run's int is the exit code
    listed = run(site, "--help")
    assert listed.returncode == 0
    assert any(
        line.split()[:3] == ["hello", "Say", "hello."] for line in listed.stdout.splitlines()
    )
    usage = run(site, "hello", "Ana", "--times", "two")
    assert usage.returncode == 2
    assert usage.stderr == (
        "eval hello: argument --times: invalid int value: 'two' (see eval hello --help)\n"
    )


def test_a_command_plugins_refusal_and_fault_are_one_line(tmp_path: Path) -> None:
    site = site_with(tmp_path, "eval_hello", "eval_hello", HELLO)
    refused = run(site, "hello", "nobody")
    assert (refused.returncode, refused.stdout) == (3, "")
    assert refused.stderr == "eval hello: nobody to greet second line\n"
    raised = run(site, "hello", "boom")
    assert (raised.returncode, raised.stdout) == (2, "")
    assert raised.stderr == (
        "eval: plug-in eval-hello 0.1.0: the command 'hello' raised KeyError: 'boom' "
        "(at eval_hello.py:10)\n"
    )
    traced = run(site, "--traceback", "hello", "boom")
    assert 'eval_hello.py", line 10, in hello' in traced.stderr
    odd = run(site, "hello", "maybe")
    assert odd.returncode == 2
    assert odd.stderr == (
        "eval: plug-in eval-hello 0.1.0: the command 'hello' returned 'yes', not an exit "
        "code (an int)\n"
    )


def test_a_broken_command_plugin_is_one_line_naming_it(tmp_path: Path) -> None:
    result = run(site_with(tmp_path, "eval_hello_missing"), "--help")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "eval: command plug-in eval-hello is broken: entry point 'hello' (eval_hello_missing) "
        "failed to load: ModuleNotFoundError"
    )
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr


def test_a_core_command_runs_without_the_command_plugins_code(tmp_path: Path) -> None:
    """A command plug-in only adds commands: ``eval hash`` (the core's) neither imports nor
    runs it, so a broken one stops its own command and ``--help``, never a Sweep's."""
    site = site_with(tmp_path, "eval_hello_missing")
    corpus = Path(__file__).resolve().parents[3] / "corpus"
    hashed = run(site, "hash", str(corpus))
    assert (hashed.returncode, hashed.stderr) == (0, ""), hashed.stderr
    assert len(hashed.stdout.strip()) == 64
    assert run(site, "hello").returncode == 2  # its own command: refused, naming it


RAISING = """
from eval_core._plugins.hookspecs import hookimpl


@hookimpl
def eval_commands(commands):
    raise RuntimeError("no room for hello")
"""

TYPER_STYLE = """
from eval_core._plugins.hookspecs import hookimpl


@hookimpl
def eval_commands(app):
    app.command("hello")(print)
"""

MISSPELT = """
from eval_core._plugins.hookspecs import hookimpl


@hookimpl
def eval_command(commands):
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


def test_a_command_plugin_written_for_the_old_app_hook_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    result = run(site_with(tmp_path, "eval_hello", "eval_hello", TYPER_STYLE), "--help")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.startswith("eval: command plug-in eval-hello 0.1.0 is refused: ")
    assert "eval_commands(app)" in result.stderr and "{'app'}" in result.stderr
    assert result.stderr.endswith("(the hook is eval_commands(commands))\n")
    assert len(result.stderr.splitlines()) == 1
