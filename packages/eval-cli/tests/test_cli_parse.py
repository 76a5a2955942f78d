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

from eval_cli import app, cli, usage
from eval_core._plugins.commands import Command


def _table() -> dict[str, Command]:
    commands = cli.registry()
    cli.add_commands(commands)
    return commands.table


TABLE = _table()
BUILT = app.build(TABLE)
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


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
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
