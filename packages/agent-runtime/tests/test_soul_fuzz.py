"""Fuzzing the Soul's files: whatever a file holds, the Soul loads or is refused with a
SoulError naming the file; nothing else is raised, nothing blocks, nothing grows unbounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_runtime.soul.loader import SoulError, load_soul

FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
FILES = (
    "soul.yaml",
    "guardrails.yaml",
    "agents/finance/AGENT.md",
    "skills/refund-policy/SKILL.md",
    "integrations/eval-mcp/mcp.yaml",
)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


def documents() -> st.SearchStrategy[bytes]:
    """Raw bytes, text, YAML of any shape, and front matter around YAML of any shape."""
    dumped = values.map(lambda v: yaml.safe_dump(v, allow_unicode=True))
    fronted = st.tuples(dumped, st.text(max_size=40)).map(lambda p: f"---\n{p[0]}---\n{p[1]}\n")
    texts = st.one_of(st.text(max_size=200), dumped, fronted)
    return st.one_of(
        st.binary(max_size=300), texts.map(lambda t: t.encode("utf-8", "surrogatepass"))
    )


@pytest.fixture
def soul(soul_copy: Path) -> Path:
    return soul_copy


@FUZZ
@given(name=st.sampled_from(FILES), data=documents())
def test_a_soul_file_of_any_content_loads_or_is_refused_naming_it(
    soul: Path, name: str, data: bytes
) -> None:
    target = soul / name
    if not target.parent.is_dir():
        target.parent.mkdir(parents=True)
    original = target.read_bytes() if target.exists() else None
    target.write_bytes(data)
    try:
        load_soul(soul)
    except SoulError as error:
        assert str(error).strip(), "a refusal says why"
    finally:
        if original is None:
            target.unlink()
        else:
            target.write_bytes(original)


def test_the_fuzzed_files_are_the_eval_souls_own(soul: Path) -> None:
    assert [name for name in FILES if not (soul / name).is_file()] == []
