"""`eval init`: a starter Corpus in a team's project that sweeps green at once, written beside
what the team has without breaking it, and nothing written when it is refused. ``eval`` runs
through its real command line in this process (``eval_in_process``): what it writes and says
is under test, not the process."""

from __future__ import annotations

import json
import tempfile
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core.hosts import ToolDecl
from eval_scaffold import starter
from tests.conftest import eval_in_process, judgeless_env


def files_in(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_init_then_sweep_clears_in_an_empty_project(tmp_path: Path) -> None:
    env = judgeless_env(EVAL_CACHE="off")
    made = eval_in_process("init", cwd=tmp_path, env=env)
    assert made.returncode == 0, made.stderr
    assert files_in(tmp_path) == [
        ".gitignore",
        "corpus/a-greeting-calls-no-tool.json",
        "corpus/eval.lock",
        "corpus/lookup-order-is-called.json",
        "corpus/soul/agents/assistant/AGENT.md",
        "corpus/the-question-reaches-the-model.json",
        "corpus/the-turn-completes.json",
        "pyproject.toml",
    ]
    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["eval"]
    assert settings == {"corpus": "corpus", "host": "agent-runtime"}
    assert (tmp_path / ".gitignore").read_text() == "scorecards/\n"
    kinds = {
        e["kind"]
        for path in (tmp_path / "corpus").glob("*.json")
        for e in json.loads(path.read_text())["expect"]
    }
    assert {"tool_called", "tool_not_called", "output_contains", "loop_status"} <= kinds
    swept = eval_in_process("sweep", cwd=tmp_path, env=env)
    assert swept.returncode == 0, swept.stdout + swept.stderr
    assert "4 passed, 0 failed, 0 errored" in swept.stdout
    assert swept.stdout.rstrip().endswith("CLEARED")


def test_a_gitignore_or_pyproject_it_cannot_use_is_said_in_one_line_not_a_traceback(
    tmp_path: Path,
) -> None:
    """A ``.gitignore`` and a ``pyproject.toml`` that are no files (here directories): the
    starter Corpus is written, and what to do by hand is said, never a traceback."""
    (tmp_path / ".gitignore").mkdir()
    (tmp_path / "pyproject.toml").mkdir()
    made = eval_in_process("init", cwd=tmp_path, env=judgeless_env(EVAL_CACHE="off"))
    assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr
    assert f"{tmp_path / '.gitignore'}: not a writable text file: add scorecards/" in made.stdout
    assert "paste this table there yourself" in made.stdout
    assert (tmp_path / "corpus" / "eval.lock").is_file()


def test_init_appends_its_settings_and_keeps_the_teams_files(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "acme"\nversion = "1.0"\n\n[tool.ruff]\nline-length = 88'
    (tmp_path / "pyproject.toml").write_text(pyproject)
    (tmp_path / ".gitignore").write_text("dist/")
    made = eval_in_process("init", "--corpus", "evals", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(pyproject + "\n")
    parsed = tomllib.loads(text)
    assert parsed["project"]["name"] == "acme" and parsed["tool"]["ruff"] == {"line-length": 88}
    assert parsed["tool"]["eval"] == {"corpus": "evals", "host": "agent-runtime"}
    assert (tmp_path / ".gitignore").read_text() == "dist/\nscorecards/\n"
    again = eval_in_process("init", "--corpus", "more", cwd=tmp_path)  # [tool.eval] is there now
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "pyproject.toml").read_text() == text  # printed to paste, not edited
    assert 'paste this table there yourself:\n\n[tool.eval]\ncorpus = "more"' in again.stdout
    assert (tmp_path / ".gitignore").read_text() == "dist/\nscorecards/\n"  # once


@pytest.mark.parametrize(
    ("existing", "reason"),
    [
        ("tool = { black = { line-length = 88 } }\n", "an inline [tool] table: no new table"),
        ("[tool.eval]\nhost = 'langgraph'\n", "the team's own settings"),
        ("[project\n", "not TOML"),
    ],
)
def test_settings_that_cannot_be_added_safely_are_left_for_the_team(
    tmp_path: Path, existing: str, reason: str
) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(existing)
    assert not starter.add_settings(pyproject, starter.settings_table("corpus", "x", None)), reason
    assert pyproject.read_text() == existing


def test_init_never_writes_over_a_corpus(tmp_path: Path) -> None:
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "mine.json").write_text("{}")
    refused = eval_in_process("init", cwd=tmp_path)
    assert refused.returncode == 2
    assert "already exists and is not an empty directory" in refused.stderr
    assert files_in(tmp_path) == ["corpus/mine.json"]


def test_an_agent_the_host_lacks_is_refused_and_nothing_is_left(tmp_path: Path) -> None:
    refused = eval_in_process("init", "--agent", "travl", cwd=tmp_path)
    assert refused.returncode == 2
    assert "eval init: no agent 'travl'; the Host has: " in refused.stderr
    assert "assistant" in refused.stderr and "Traceback" not in refused.stderr
    assert files_in(tmp_path) == []


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "object", "properties": {"city": {"type": "string"}}}, {}),
        (
            {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "nights": {"type": "integer"},
                    "unit": {"enum": ["c", "f"]},
                    "day": {"type": "string", "default": "today"},
                    "note": {"type": ["null", "string"]},
                },
                "required": ["city", "nights", "unit", "day", "note"],
            },
            {"city": "example", "nights": 1, "unit": "c", "day": "today", "note": "example"},
        ),
    ],
)
def test_sample_arguments_fill_each_required_parameter(
    schema: dict[str, object], expected: dict[str, object]
) -> None:
    assert starter.sample_arguments(schema) == expected


KEYS = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
PRINTABLE = st.characters(blacklist_categories=("Cc", "Cs"))
VALUES = st.one_of(st.integers(-1000, 1000), st.text(PRINTABLE, max_size=12), st.booleans())
TABLES = st.dictionaries(
    st.one_of(KEYS, KEYS.map(lambda k: f"tool.{k}").filter(lambda k: k != "tool.eval")),
    st.dictionaries(KEYS, VALUES, max_size=3),
    max_size=4,
)


def rendered(tables: dict[str, dict[str, object]], trailing_newline: bool) -> str:
    lines = []
    for name, values in tables.items():
        lines.append(f"[{name}]")
        lines += [
            f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in values.items()
        ]
    text = "\n".join(lines)
    return text + "\n" if trailing_newline and text else text


@given(tables=TABLES, trailing_newline=st.booleans())
@settings(max_examples=60, deadline=None)
def test_appending_the_settings_keeps_every_table_the_team_had(
    tables: dict[str, dict[str, object]], trailing_newline: bool
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        pyproject = Path(folder) / "pyproject.toml"
        text = rendered(tables, trailing_newline)
        pyproject.write_text(text)
        before = tomllib.loads(text)
        assert starter.add_settings(pyproject, starter.settings_table("evals", "pydantic-ai", None))
        after = pyproject.read_text()
        assert after.startswith(text)
        parsed = tomllib.loads(after)
        assert parsed.pop("tool")["eval"] == {"corpus": "evals", "host": "pydantic-ai"}
        before.pop("tool", None)
        assert parsed == before


def decl(name: str, mutating: bool = False) -> ToolDecl:
    return ToolDecl(name=name, input_schema={"type": "object"}, mutating=mutating)


@pytest.mark.parametrize(
    ("names", "mutating", "expected"),
    [
        (["book_trip", "get_weather"], set(), ("get_weather", "book_trip")),
        (["lookup_order", "refund_order", "search_help"], set(), ("lookup_order", "refund_order")),
        (["archive", "delete"], {"delete"}, ("archive", "delete")),
        (["only_one"], set(), ("only_one", "only_one")),
    ],
)
def test_the_starter_calls_a_reading_tool_and_keeps_off_a_writing_one(
    names: list[str], mutating: set[str], expected: tuple[str, str]
) -> None:
    call, avoid = starter.choose_tools({n: decl(n, n in mutating) for n in names})
    assert call is not None and avoid is not None
    assert (call.name, avoid.name) == expected
