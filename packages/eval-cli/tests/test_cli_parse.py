"""Any words after a command parse, or are one usage mistake said in one line (issue 48).

The parser is typer's, reached through its public API only: click's exceptions, which typer
raises but does not export, are known by name (:mod:`eval_cli.usage`), and each value is
made by its declared ``type`` through click's ``process_value``
(:class:`eval_cli.app.Plain`). A property over words drawn from each command's own
flags, its values and some noise holds both to it: whatever typer raises is recognised as a
usage mistake (never a traceback, never click's usage dump), and a parsed value has its
declared type. Nothing is run: the command's work starts only after typer returns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_cli import app, cli, quick, usage
from eval_core._plugins.commands import Command


def _table() -> dict[str, Command]:
    commands = cli.registry()
    cli.add_commands(commands)
    return commands.table


TABLE = _table()
BUILT = app.build(TABLE)
PARSES = settings(
    deadline=None,
    derandomize=True,  # the same words every run: a parse that fails, fails again
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # capsys, read each example
)
"""What every property of the parse below runs under (each its own ``max_examples``)."""
NOISE = ["x", "3", "-1", "0.5", "-", "--", "--bogus", "-z", "a=b", "--bogus=1", "-qz"]


@st.composite
def argv(draw: st.DrawFn) -> list[str]:
    """A command, then up to eight words from its flags (bare or ``--flag=value``), values
    and noise."""
    name = draw(st.sampled_from(sorted(TABLE)))
    flags = [f for a in TABLE[name].arguments.declared for f in a.flags if f.startswith("-")]
    longs = [f for f in flags if f.startswith("--")]
    word = st.one_of(
        st.sampled_from(flags or ["--bogus"]),
        st.sampled_from(NOISE),
        st.builds(
            lambda f, v: f"{f}={v}", st.sampled_from(longs or ["--bogus"]), st.sampled_from(NOISE)
        ),
    )
    return [name, *draw(st.lists(word, max_size=8))]


def typed(command: Command, parsed: Any) -> None:
    """Each parsed value has its declared type (or is absent)."""
    for argument in command.arguments.declared:
        value = getattr(parsed, argument.dest)
        kind = argument.settings.get("type")
        values = value if isinstance(value, list) else [value]
        if argument.settings.get("action") == "store_true":
            assert isinstance(value, bool), (argument.dest, value)
        elif kind in (int, float):
            assert all(v is None or isinstance(v, kind) for v in values), (argument.dest, value)
        elif kind is not None and kind.__name__ == "path":
            assert all(v is None or isinstance(v, Path) for v in values), (argument.dest, value)


@settings(PARSES, max_examples=150)
@given(words=argv())
def test_words_after_a_command_parse_or_are_one_usage_line(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        parsed = BUILT.main(words, prog_name="eval", standalone_mode=False)
    except Exception as exc:
        assert usage.is_usage_error(exc), f"{words}: {type(exc).__name__}: {exc}"
        said = usage.line(exc)
        assert "\n" not in said and said.startswith(f"eval {words[0]}: "), (words, said)
        assert said.endswith(f" (see eval {words[0]} --help)"), (words, said)
        return
    finally:
        capsys.readouterr()  # a -h among the words prints the help
    if isinstance(parsed, tuple):
        command, namespace = parsed
        assert command is TABLE[words[0]]
        typed(command, namespace)
    else:
        assert parsed == 0, (words, parsed)  # the help, printed


def test_click_errors_are_known_by_name_and_ours_by_class() -> None:
    """typer's ``BadParameter`` is click's, so a subclass of click's ``UsageError`` by name;
    a plain error is neither."""
    import typer

    bad = typer.BadParameter("no")
    assert usage.is_click_error(bad) and usage.is_click_error(bad, "UsageError")
    assert usage.is_usage_error(bad) and usage.is_usage_error(usage.UsageRefused("no"))
    assert not usage.is_click_error(ValueError("no")) and not usage.is_usage_error(KeyError())
    assert usage.line(usage.UsageRefused("a problem")) == "eval: a problem (see eval --help)"


# ------------------------------------------------------------------- plain words, without typer


def _typer(words: list[str]) -> tuple[Command, Any] | None:
    """What typer's parse makes of the words (``None``: a usage mistake, or the help)."""
    try:
        parsed = BUILT.main(words, prog_name="eval", standalone_mode=False)
    except Exception as exc:
        assert usage.is_usage_error(exc), f"{words}: {type(exc).__name__}: {exc}"
        return None
    return parsed if isinstance(parsed, tuple) else None


@settings(PARSES, max_examples=300)
@given(words=argv())
def test_plain_words_parse_without_typer_as_typer_parses_them(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """Words the quick parser takes make the namespace typer's parse makes; words it leaves
    to typer include every usage mistake (typer says it)."""
    command = TABLE[words[0]]
    quick_made = quick.parse(command, words[1:])
    typer_made = _typer(words)
    capsys.readouterr()
    if quick_made is None:
        return
    assert typer_made is not None, f"{words}: quick parsed {quick_made}, typer refused"
    assert typer_made[0] is command
    assert vars(quick_made) == vars(typer_made[1]), words


_VALUES = {int: "3", float: "0.5"}


@st.composite
def plain_argv(draw: st.DrawFn) -> list[str]:
    """A command, its positional (when it has one) and some of its flags in any order, each
    once (``append`` ones up to twice) with a value its type takes, long ones sometimes as
    ``--flag=value``, a ``const`` one sometimes bare."""
    name = draw(st.sampled_from(sorted(TABLE)))
    words: list[list[str]] = []
    for argument in TABLE[name].arguments.declared:
        settings_ = argument.settings
        value = _VALUES.get(settings_.get("type"), "v")
        if "choices" in settings_:
            value = str(draw(st.sampled_from(list(settings_["choices"]))))
        if argument.positional:
            count = {"?": draw(st.integers(0, 1)), "+": draw(st.integers(1, 2))}
            words += [[value]] * count.get(settings_.get("nargs"), 1)
            continue
        times = draw(st.integers(0, 2 if settings_.get("action") == "append" else 1))
        for _ in range(times):
            flag = draw(st.sampled_from(argument.flags))
            bare = "const" in settings_ and draw(st.booleans())
            if settings_.get("action") == "store_true" or bare:
                words.append([flag])
            elif flag.startswith("--") and draw(st.booleans()):
                words.append([f"{flag}={value}"])
            else:
                words.append([flag, value])
    order = draw(st.permutations(range(len(words))))
    bare = {i for i, w in enumerate(words) if len(w) == 1 and w[0].startswith("-")}
    if bare and any(not w[0].startswith("-") for w in words):
        order = sorted(order, key=lambda i: i in bare)  # a bare const last: never given a value
    return [name, *(word for i in order for word in words[i])]


@settings(PARSES, max_examples=200)
@given(words=plain_argv())
def test_every_command_s_plain_words_are_parsed_as_typer_parses_them(
    words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    quick_made = quick.parse(TABLE[words[0]], words[1:])
    typer_made = _typer(words)
    capsys.readouterr()
    assert quick_made is not None and typer_made is not None, words
    assert vars(quick_made) == vars(typer_made[1]), words


@pytest.mark.parametrize(
    "words",
    [
        ["sweep"],
        ["sweep", "corpus", "--quiet", "--log", "t.jsonl"],
        ["sweep", "--case", "a", "corpus", "--case=b", "-j", "2", "--format", "json"],
        ["sweep", "--baseline", "-q", "--repeat", "3", "--max-spend", "0.5"],
        ["sweep", "--baseline"],
        ["sweep", "--baseline", "base.json", "--host-option", "k=v", "--suite", "all"],
        ["check", "corpus", "--drift", "--host", "agent-runtime"],
        ["schema", "-o", "out.json"],
        ["plugins", "--examples", "4", "--kind", "output_contains"],
    ],
)
def test_a_script_s_words_are_parsed_without_typer_as_typer_parses_them(
    words: list[str],
) -> None:
    quick_made = quick.parse(TABLE[words[0]], words[1:])
    typer_made = _typer(words)
    assert quick_made is not None and typer_made is not None, words
    assert vars(quick_made) == vars(typer_made[1])


@pytest.mark.parametrize(
    "words",
    [
        ["sweep", "--help"],
        ["sweep", "-h"],
        ["sweep", "a", "b"],
        ["sweep", "--quiet", "--quiet"],
        ["sweep", "--repeat", "x"],
        ["sweep", "--repeat", "-1"],
        ["sweep", "--log"],
        ["sweep", "--log", "--quiet"],
        ["sweep", "--quiet=1"],
        ["sweep", "-qv"],
        ["sweep", "-j=2"],
        ["sweep", "--bogus"],
        ["sweep", "--", "corpus"],
        ["sweep", "-"],
        ["sweep", "--baseline", "-"],
    ],
)
def test_words_that_are_not_plain_are_left_to_typer(words: list[str]) -> None:
    assert quick.parse(TABLE[words[0]], words[1:]) is None, words
