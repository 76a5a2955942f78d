"""Every command, given the bad inputs a hostile (or hurried) user tries: exit 2, a reason that
names the file, the JSON path where there is one, and never a traceback.

The CLI runs in-process here (``eval_cli.cli.main`` with real files, real FIFOs, real
symbolic links; nothing of ours is replaced) so the walk over every command stays fast; a
SIGALRM guard turns a read that blocks into a failure instead of a hung suite.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, minimal_case


@dataclass
class Ran:
    code: int
    out: str
    err: str


Cli = Callable[..., Ran]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A working directory with a locked Corpus of one valid Case (``corpus/``)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus" / "soul", corpus / "soul")
    shutil.copy(ROOT / "corpus" / "eval.lock", corpus / "eval.lock")
    (corpus / "c.json").write_text(json.dumps(minimal_case()))
    return tmp_path


@pytest.fixture
def cli(project: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.chdir(project)
    for name in ("EVAL_JUDGE_BASE_URL", "EVAL_JUDGE_MODEL", "EVAL_JUDGE_API_KEY"):
        monkeypatch.delenv(name, raising=False)

    def timeout(signum: int, frame: Any) -> None:
        raise TimeoutError("the command blocked")

    from eval_cli.cli import main

    def run(*args: str | Path) -> Ran:
        capfd.readouterr()
        monkeypatch.setattr(sys, "argv", ["eval", *map(str, args)])
        previous = signal.signal(signal.SIGALRM, timeout)
        signal.alarm(20)
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        else:
            code = 0
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        out, err = capfd.readouterr()
        return Ran(code, out, err)

    return run


def refused(ran: Ran, *words: str, lines: int | None = 1) -> None:
    assert ran.code == 2, (ran.code, ran.out, ran.err)
    assert "Traceback" not in ran.err, ran.err
    assert ran.out == "", ran.out
    if lines is not None:
        assert len(ran.err.strip().splitlines()) == lines, ran.err
    for word in words:
        assert word in ran.err, ran.err


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


# ----------------------------------------------------------------------------- the loader


def write(project: Path, name: str, text: str) -> Path:
    path = project / "corpus" / name
    path.write_text(text)
    return path


@pytest.fixture
def hostile_corpus(project: Path) -> Iterator[Path]:
    """One Corpus holding one of each hostile Case file; the loader must name every one."""
    corpus = project / "corpus"
    write(project, "deep.json", '{"id": "deep", "expect": ' + nested(100_000) + "}")
    write(project, "deepy.yaml", "id: deepy\nexpect: " + nested(500) + "\n")
    bomb = "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    write(project, "bomb.yaml", bomb)
    write(project, "loop.yaml", "id: loop\nexpect: &x [*x]\n")
    many = minimal_case("many", trials=10**12)
    write(project, "many.json", json.dumps(many))
    (corpus / "dangling.json").symlink_to(corpus / "nowhere.json")
    (corpus / "folder.json").mkdir()
    os.mkfifo(corpus / "pipe.json")
    yield corpus


def test_the_loader_names_every_hostile_case_file_and_never_skips_or_blocks(
    cli: Cli, hostile_corpus: Path
) -> None:
    ran = cli("check", "corpus")
    refused(ran, lines=None)
    problems = ran.err.splitlines()[1:]
    expected = {
        "bomb.yaml": "$.a: YAML anchor &a refused",
        "dangling.json": "$: a dangling symbolic link",
        "deep.json": "$.expect[0][0]",
        "deepy.yaml": "nested deeper than 64 levels",
        "folder.json": "$: a directory, not a file",
        "loop.yaml": "$.expect: YAML anchor &x refused",
        "many.json": f"$.trials: {10**12} is over the limit of 1000",
        "pipe.json": "$: a named pipe (FIFO), not a regular file",
    }
    for name, words in expected.items():
        assert any(f"{name}: " in p and words in p for p in problems), (name, ran.err)


def test_trials_and_repeat_that_multiply_past_the_plan_limit_are_refused(
    cli: Cli, project: Path
) -> None:
    write(project, "c.json", json.dumps(minimal_case(trials=1000)))
    refused(cli("sweep", "corpus", "--repeat", "101"), "would plan 101000 Trials", "100000")
    assert not (project / "scorecards").exists()  # refused before the first Trial


def test_a_context_value_of_the_wrong_type_is_refused_before_any_trial(
    cli: Cli, project: Path
) -> None:
    """The Host declares the value each ``context`` key takes: a number where the runtime wants
    text is refused at load, not an errored Trial."""
    write(project, "c.json", json.dumps(minimal_case(context={"customInstructions": 42})))
    ran = cli("sweep", "corpus")
    said = "c.json: $.context.customInstructions: Expected `str | null`, got `int`"
    refused(ran, "Corpus refused in corpus: 1 problem(s)", said, lines=2)  # the problem's line
    assert not (project / "scorecards").exists()  # refused before the first Trial
    write(project, "c.json", json.dumps(minimal_case(context={"customInstructions": "Be brief."})))
    assert cli("check", "corpus").code == 0


# ------------------------------------------------------------------ every command, bad inputs


def bad_inputs(project: Path) -> list[tuple[tuple[str, ...], list[str]]]:
    """(argv, words the one-line refusal must hold) for every command."""
    deep = project / "deep.json"
    deep.write_text('{"scorecard": ' + nested(100_000) + "}")
    (project / "a-dir").mkdir()
    (project / "file").write_text("x")
    os.mkfifo(project / "pipe")
    (project / "target.json").write_text("{}")
    (project / "link.json").symlink_to(project / "target.json")
    (project / "existing.jsonl").write_text("x\n")
    old_log = project / "old.jsonl"
    old_log.write_text(
        json.dumps({"kind": "sweep", "corpusHash": "0" * 64, "modelId": "scripted",
                    "selected": [], "repeat": 1, "startedAt": "t"}) + "\n"
    )  # fmt: skip
    (project / "models.toml").write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    return [
        (("check", "file"), ["Corpus refused: file: $: a file"]),
        (("check", "missing"), ["missing: $: no such Corpus directory"]),
        (("hash", "file"), ["a file: a Corpus is a directory"]),
        (("hash", "pipe"), ["pipe: $: not a directory"]),
        (("plugins", "extra"), ["eval plugins:", "(see eval plugins --help)"]),
        (("lock", "file"), ["Corpus refused: file: $: a file"]),
        (("lock", "missing"), ["no such Corpus directory"]),
        (("schema", "-o", "a-dir"), ["--output a-dir: a directory, not a file"]),
        (("schema", "-o", "file/x.json"), ["file is a file, not a directory"]),
        (("schema", "-o", "pipe"), ["--output pipe: a named pipe"]),
        (("schema", "-o", "link.json"), ["--output link.json: a symbolic link"]),
        (("schema", "-o", "/dev/null"), ["a device, not a regular file"]),
        (("sweep", "file"), ["a file: a Corpus is a directory"]),
        (
            ("sweep", "corpus", "--repeat", "1e12"),
            ["eval sweep: argument --repeat: invalid int value: '1e12'", "(see eval sweep --help)"],
        ),
        (("sweep", "corpus", "--repeat", str(10**12)), ["--repeat must be between 1 and 1000"]),
        (("sweep", "corpus", "--repeat", "0"), ["--repeat must be between 1 and 1000"]),
        (("sweep", "corpus", "--model", ""), ["eval: --model: an empty value; give it one"]),
        (("sweep", "corpus", "--model="), ["eval: --model: an empty value; give it one"]),
        (("sweep", "corpus", "--max-spend", "1e-320"), ["--max-spend 1e-320 is subnormal"]),
        (("sweep", "corpus", "--model", ","), ["--model ',' has an empty model name"]),
        (("sweep", "corpus", "--model", "a,,b"), ["empty model name"]),
        (("sweep", "corpus", "--model", "x", "--max-tokens", "9"), ["models refused", "nested"]),
        (("sweep", "corpus", "--save", "a-dir"), ["--save a-dir: a directory, not a file"]),
        (("sweep", "corpus", "--save", "file/card.json"), ["file is a file, not a directory"]),
        (("sweep", "corpus", "--save", "pipe"), ["--save pipe: a named pipe"]),
        (("sweep", "corpus", "--save", "link.json"), ["--save link.json: a symbolic link"]),
        (("sweep", "corpus", "--save", "/dev/null"), ["--save /dev/null: a device"]),
        (
            ("sweep", "corpus", "--save", "x.json", "--log", "x.json"),
            ["the same file as --save x.json"],
        ),
        (("sweep", "corpus", "--save", "baselines/scripted.json"), ["only --promote writes"]),
        (("sweep", "corpus", "--save-dir", "baselines"), ["only --promote writes"]),
        (("sweep", "corpus", "--save-dir", "file"), ["--save-dir file: not a directory"]),
        (("sweep", "corpus", "--junit-xml", "a-dir"), ["--junit-xml a-dir: a directory"]),
        (("sweep", "corpus", "--junit-xml", "x.xml", "--save", "x.xml"), ["the same file"]),
        (("sweep", "corpus", "--log", "existing.jsonl"), ["--log existing.jsonl: already exists"]),
        (("sweep", "corpus", "--log", "a-dir"), ["--log a-dir: a directory"]),
        (("sweep", "corpus", "--resume", "a-dir"), ["a-dir: cannot read the trial log"]),
        (("sweep", "corpus", "--resume", "missing.jsonl"), ["no such file"]),
        (("sweep", "corpus", "--resume", "pipe"), ["a named pipe"]),
        (("sweep", "corpus", "--resume", str(deep)), ["not a trial log"]),
        (
            ("sweep", "corpus", "--resume", "old.jsonl"),
            ["does not record the commit of the Corpus's tree"],
        ),
        (("sweep", "corpus", "--save", "old.jsonl", "--resume", "old.jsonl"), ["the same file"]),
        (("sweep", "corpus", "--case", "ghost"), ["no such Case"]),
        (("sweep", "corpus", "--host-option", "store"), ["--host-option 'store': expected KEY"]),
        (("sweep", "corpus", "--host-option", "nope=1"), ["takes no option 'nope'", "store"]),
        (
            ("sweep", "corpus", "--host-option", "store=a", "--host-option", "store=b"),
            ["--host-option 'store' given twice"],
        ),
        (
            ("sweep", "corpus", "--host-option", "store=mysql://u:pw@h/x"),
            ["refused its options: store mysql://u:***@h/x: not a store"],
        ),
        (
            ("sweep", "corpus", "--host-option", "store=postgresql://u:pw@[::1/x"),
            ["store postgresql://u:***@[::1/x: malformed"],
        ),
        (
            ("sweep", "corpus", "--host-option", "store=postgresql://u:pw@127.0.0.1:1/postgres"),
            ["store postgresql://u@127.0.0.1:1/postgres: cannot connect", "Connection refused"],
        ),
        (("compare", "a-dir", "a-dir"), ["a-dir: $: a directory, not a file"]),
        (("compare", "missing.json", "missing.json"), ["missing.json: $: no such file"]),
        (("compare", "pipe", "pipe"), ["pipe: $: a named pipe"]),
        (("compare", str(deep), str(deep)), ["deep.json: $.scorecard[0][0]", "deeper than 64"]),
        (("compare", "file", "file"), ["file: $: corrupt or truncated JSON"]),
    ]


def test_every_command_refuses_bad_input_with_one_line_and_exit_2(cli: Cli, project: Path) -> None:
    for argv, words in bad_inputs(project):
        ran = cli(*argv)
        try:
            refused(ran, *words)
        except AssertionError as exc:
            raise AssertionError(f"eval {' '.join(argv)}: {exc}") from None
    assert not (project / "scorecards").exists(), "a refused Sweep wrote a trial log"
    assert (project / "target.json").read_text() == "{}"  # nothing written through the link
    # A Baseline too deep to read is a refused comparison (exit 3, after the Sweep), named.
    ran = cli("sweep", "corpus", "--baseline", project / "deep.json")
    assert ran.code == 3, ran
    assert "Traceback" not in ran.err
    assert "deep.json: $.scorecard[0][0]" in ran.out and "deeper than 64" in ran.out


def test_an_eval_lock_that_is_a_directory_or_unreadable_is_refused(cli: Cli, project: Path) -> None:
    lock = project / "corpus" / "eval.lock"
    lock.unlink()
    lock.mkdir()
    for command in ("check", "hash", "sweep"):
        ran = cli(command, "corpus")
        if command == "hash":  # hash does not consult the lock
            assert ran.code == 0
            continue
        refused(ran, "eval.lock: $: a directory, not a file", lines=None)
    refused(cli("lock", "corpus"), "eval.lock: a directory, not a file")


def test_a_resume_log_from_another_harness_commit_is_refused(cli: Cli, project: Path) -> None:
    log = project / "log.jsonl"
    assert cli("sweep", "corpus", "--log", log).code == 0
    header, *rest = log.read_text().splitlines()
    data = json.loads(header)
    data["corpusCommit"] = "0" * 40
    log.write_text("\n".join([json.dumps(data), *rest]) + "\n")
    refused(cli("sweep", "corpus", "--resume", log), "the Corpus's commit was '0000")
