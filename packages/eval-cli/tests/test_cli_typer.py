"""The `eval` command line on typer: every usage error is one line naming the command and the
problem (exit 2, never click's usage dump), ``--traceback`` goes anywhere, ``--baseline``
takes an optional PATH, a plug-in cannot take a command name twice, the help lists every
command and flag declared (derived from the declarations, not a snapshot), and rich stays off
the path of the parser.

In process through :func:`eval_cli.cli.invoke` (the installed command plug-ins, eval-report's
among them, are added as ``eval`` adds them); a plug-in of our own in a subprocess where one is
needed."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from eval_cli import app, cli
from eval_core._plugins.commands import CANONICAL
from eval_core._util import guard

ROOT = Path(__file__).resolve().parents[3]
CORE = ("check", "hash", "plugins", "lock", "schema", "sweep", "new-plugin", "init", "compare")


def ran(argv: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capfd.readouterr()
    code = cli.invoke(argv)
    out, err = capfd.readouterr()
    return code, out, err


def one_line_usage(argv: list[str], capfd: pytest.CaptureFixture[str], command: str) -> str:
    code, out, err = ran(argv, capfd)
    assert (code, out) == (2, ""), (argv, code, out, err)
    assert len(err.splitlines()) == 1 and err.endswith("\n"), (argv, err)
    assert err.startswith(f"{command}: ") and err.endswith(f" (see {command} --help)\n"), err
    assert "usage:" not in err and "Traceback" not in err
    return err


def built() -> tuple[Any, dict[str, cli.Command]]:
    commands = cli.registry()
    cli.add_commands(commands)
    return app.build(commands.table), commands.table


def parsed(argv: list[str]) -> Any:
    """The arguments typer parsed for ``eval ARGV`` (the command is not run)."""
    top, _ = built()
    _, args = top.main(argv, prog_name="eval", standalone_mode=False)
    return args


def squeeze(text: str) -> str:
    """Whitespace as one space, and a word click's wrapping broke at its hyphen made whole."""
    return re.sub(r"(?<=\w)- (?=\w)", "-", " ".join(text.split()))


def test_every_usage_error_is_one_line_naming_the_command_and_the_problem(
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, table = built()
    for name, command in table.items():  # an unknown flag, to every command
        needed = [
            "x"
            for argument in command.arguments.declared
            if argument.positional and argument.settings.get("nargs") in (None, "+")
        ]
        err = one_line_usage([name, *needed, "--no-such-flag"], capfd, f"eval {name}")
        assert "unrecognized arguments: --no-such-flag" in err
    for argv, command, problem in (
        (
            ["sweep", "--repeat", "1e12"],
            "eval sweep",
            "argument --repeat: invalid int value: '1e12'",
        ),
        (["sweep", "-j", "many"], "eval sweep", "argument -j/--jobs: invalid int value: 'many'"),
        (
            ["sweep", "--max-spend", "lots"],
            "eval sweep",
            "--max-spend: invalid float value: 'lots'",
        ),
        (["sweep", "--case"], "eval sweep", "argument --case: expected one argument"),
        (["sweep", "corpus", "extra"], "eval sweep", "unrecognized arguments: extra"),
        (["plugins", "--examples", "x"], "eval plugins", "--examples: invalid int value: 'x'"),
        (["compare", "a.json"], "eval compare", "the following arguments are required: AFTER"),
        (["new-plugin"], "eval new-plugin", "the following arguments are required: NAME"),
        (["schema", "-o"], "eval schema", "argument -o/--output: expected one argument"),
        (["swep"], "eval", "argument COMMAND: invalid choice: 'swep'"),
        (["--no-such-flag", "check"], "eval", "unrecognized arguments: --no-such-flag"),
        (["--verb", "sweep"], "eval", "unrecognized arguments: --verb"),
        (["sweep", "--verb"], "eval sweep", "unrecognized arguments: --verb"),  # no prefixes
    ):
        assert problem in one_line_usage(argv, capfd, command), argv


def test_no_arguments_print_the_help_and_exit_2(capfd: pytest.CaptureFixture[str]) -> None:
    code, out, err = ran([], capfd)
    assert (code, err) == (2, "")
    assert out.startswith("Usage: eval ") and "Exit codes: 0 cleared;" in out


def test_traceback_is_accepted_after_the_command(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_TRACEBACK", "0")  # both restored after the test
    monkeypatch.setitem(guard._settings, "tracebacks", False)
    code, out, err = ran(["compare", "missing.json", "gone.json", "--traceback"], capfd)
    assert (code, out) == (2, "")
    assert err.startswith("missing.json: $: no such file")  # the command ran, flag taken
    assert guard._settings["tracebacks"] is True and os.environ["EVAL_TRACEBACK"] == "1"


def test_baseline_without_a_path_then_another_flag_is_the_canonical_baseline(
    capfd: pytest.CaptureFixture[str],
) -> None:
    given = parsed(["sweep", "--baseline", "--model", "x"])
    assert (given.baseline, given.model) == (CANONICAL, "x")
    assert parsed(["sweep", "--baseline"]).baseline == CANONICAL
    assert parsed(["sweep", "--baseline", "b.json", "-q"]).baseline == "b.json"
    assert parsed(["sweep"]).baseline is None
    split = parsed(["sweep", "--model", "a, b", "--case", "x", "--case", "y"])
    assert (split.model, split.case) == ("a, b", ["x", "y"])
    typed = parsed(["sweep", "--repeat", "3", "--max-spend", "0.5", "-q"])
    assert (typed.repeat, typed.max_spend, typed.quiet, typed.jobs) == (3, 0.5, True, None)
    assert (typed.corpus, typed.models, typed.host) == (None, None, None)  # [tool.eval]'s
    given = parsed(["sweep", "evals", "--models", "pins.toml"])
    assert (given.corpus, given.models) == (Path("evals"), Path("pins.toml"))  # converted
    # End to end: the canonical Baseline reaches the Sweep, which refuses it with --case.
    for argv in (["--baseline", "--quiet"], ["--baseline"], ["--baseline", "b.json"]):
        code, out, err = ran(["sweep", "nowhere", "--case", "c", *argv], capfd)
        assert (code, out) == (2, "")
        assert err == (
            "--case selects part of the Corpus: a partial Sweep is never compared or promoted\n"
        )


def test_the_help_lists_every_command_and_every_flag_of_the_parser(
    capfd: pytest.CaptureFixture[str],
) -> None:
    _, table = built()
    assert set(CORE) | {"report", "rescore"} <= set(table)
    code, out, _ = ran(["--help"], capfd)
    assert code == 0
    listed = squeeze(out)
    for name, command in table.items():
        assert f"{name} {squeeze(command.help)}" in listed, name
    assert "--traceback" in listed and squeeze(cli.EXIT_CODES) in listed
    # The docs' CLI reference (generated by docs/hooks/cli_reference.py) reads its commands here.
    docs = runpy.run_path(str(ROOT / "docs" / "hooks" / "cli_reference.py"))
    assert set(docs["commands"](out)) == set(table), "the docs' CLI reference misses a command"
    for name, command in table.items():
        code, out, _ = ran([name, "--help"], capfd)
        assert code == 0, name
        shown = squeeze(out)
        assert squeeze(command.description) in shown, name
        for argument in command.arguments.declared:
            for flag in argument.flags if not argument.positional else ():
                assert flag in shown, (name, flag)
            if argument.metavar is not None:
                assert argument.metavar in shown, (name, argument.metavar)
            assert squeeze(argument.settings.get("help") or "") in shown, (name, argument.dest)


def test_shell_completion_completes_commands_and_flags() -> None:
    """What ``eval --install-completion`` installs asks ``eval`` itself (click's protocol)."""

    def complete(words: str) -> list[str]:
        env = {**os.environ, "_EVAL_COMPLETE": "complete_bash", "_TYPER_COMPLETE_ARGS": words}
        env["COMP_WORDS"], env["COMP_CWORD"] = words, str(len(words.split()) - 1)
        done = subprocess.run(
            [sys.executable, "-m", "eval_cli"], capture_output=True, text=True, env=env,
            timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert {"sweep", "schema"} <= set(complete("eval s"))
    assert "--repeat" in complete("eval sweep --rep")


@pytest.mark.parametrize("cword", ["99", "abc", "-5", ""])
def test_completion_with_a_bad_comp_cword_completes_the_last_word(cword: str) -> None:
    """Issue 45, class 2: a COMP_CWORD that is no number or points past the words was a
    traceback; it completes the last word."""
    env = {**os.environ, "_EVAL_COMPLETE": "complete_bash", "COMP_WORDS": "eval sw"}
    env["COMP_CWORD"] = cword
    done = subprocess.run(
        [sys.executable, "-m", "eval_cli"], capture_output=True, text=True, env=env,
        timeout=60, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["sweep"], "")


def test_installing_completion_under_a_home_that_cannot_be_written_is_one_line(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.write_text("a file where HOME's directory should be")
    done = subprocess.run(
        [sys.executable, "-m", "eval_cli", "--install-completion", "bash"],
        capture_output=True, text=True,
        # the shell named, not detected from the process tree (a test runner may have none)
        env={**os.environ, "HOME": str(home), "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"},
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("eval: cannot write") and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["sweep", "--help"], ["sweep", "nowhere", "--repeat", "2", "-j", "x"]],
)
def test_the_command_line_imports_neither_rich_nor_pydantic(argv: list[str]) -> None:
    """rich is for a Sweep's progress, never the parser's; pydantic (typer 0.29's coercion of
    every value, about 120 ms to import) is never imported: the declared types convert."""
    probe = (
        f"import sys; sys.argv = ['eval', *{argv!r}]\n"
        "from eval_cli.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "found = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(found & {'click', 'typer', 'rich', 'pydantic'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.splitlines()[-1] == "['typer']", result.stderr


def test_a_command_s_plain_words_never_import_the_parser(tmp_path: Path) -> None:
    """``eval sweep DIR --quiet`` as a script writes it is parsed without typer (issue 49:
    importing it was a seventh of a 100-Case Sweep's process); its refusal reads the same."""
    probe = (
        f"import sys; sys.argv = ['eval', 'sweep', {str(tmp_path / 'nowhere')!r}, '--quiet']\n"
        "from eval_cli.cli import main\n"
        "try:\n    main()\nexcept SystemExit as done:\n    print(done.code)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'click', 'typer', 'rich'}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert result.stdout.splitlines()[-2:] == ["2", "[]"], result.stderr
    assert "no such Corpus directory" in result.stderr and result.stderr.count("\n") == 1


# ----------------------------------------------------------------------------- plug-in commands

PLUGIN = """
from eval_core._plugins.hookspecs import hookimpl


def hello(args):
    if args.name == "stop":
        raise KeyboardInterrupt
    if args.name == "boom":
        raise ValueError("no hello today")
    print("hello", args.name)
    return 0


@hookimpl
def eval_commands(commands):
    commands.add("hello", help="Say hello.", run=hello).add_argument("name")
    commands.add(NAME, help="Mine now.", run=hello)
"""


def site(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "site"
    info = root / "eval_hello-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: eval-hello\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[eval.commands]\nhello = eval_hello\n")
    (root / "eval_hello.py").write_text(PLUGIN.replace("NAME", repr(name)))
    return root


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "eval_cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(("name", "owner"), [("sweep", "eval-core"), ("hello", "eval-hello 0.1.0")])
def test_a_plugin_command_taking_a_name_that_exists_is_refused_in_one_line(
    tmp_path: Path, name: str, owner: str
) -> None:
    result = run(site(tmp_path, name), "--help")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"eval: command plug-in eval-hello 0.1.0 is refused: it adds the command {name!r}, "
        f"which {owner} adds already\n"
    )


def test_ctrl_c_and_traceback_after_a_plugin_command(tmp_path: Path) -> None:
    root = site(tmp_path, "hola")
    assert run(root, "hello", "Ana").stdout == "hello Ana\n"
    stopped = run(root, "hello", "stop")
    assert (stopped.returncode, stopped.stderr) == (130, "eval: interrupted\n")
    quiet = run(root, "hello", "boom")
    assert quiet.returncode == 2
    assert quiet.stderr == (
        "eval: plug-in eval-hello 0.1.0: the command 'hello' raised ValueError: no hello today "
        "(at eval_hello.py:9)\n"
    )
    traced = run(root, "hello", "boom", "--traceback")  # after the command and its argument
    assert traced.returncode == 2
    assert 'eval_hello.py", line 9, in hello' in traced.stderr
    assert traced.stderr.endswith(quiet.stderr)
