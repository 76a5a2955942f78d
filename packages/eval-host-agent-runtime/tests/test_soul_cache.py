"""The Soul kept between commands: decoded equal to what the real loader returns, a miss for
any change or damage, never kept when it was refused, and no YAML import on a warm Sweep."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_runtime.soul.loader import SoulError, load_soul
from eval_core._util import cache_use
from eval_core._util.cache_entry import seal
from eval_core._util.code import fingerprint_at
from eval_host_agent_runtime.host import _code
from eval_host_agent_runtime.soul_cache import CACHE_NAME, KEPT, cached_soul, soul_key

ROOT = Path(__file__).resolve().parents[3]
EVAL_SOUL = ROOT / "corpus" / "soul"
UPSTREAM_SOUL = ROOT.parent / "shared" / "reference" / "upstream-corpus" / "apps" / "eval" / "soul"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("EVAL_CACHE", raising=False)
    return tmp_path / "cache" / "plugins" / CACHE_NAME


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/*.bin")) if cache.is_dir() else []  # <name>/<tag>/<entry>


@pytest.mark.parametrize("soul", [EVAL_SOUL, UPSTREAM_SOUL], ids=["shipped", "upstream"])
def test_a_kept_soul_decodes_equal_to_what_the_loader_returns(cache: Path, soul: Path) -> None:
    if not soul.is_dir():
        pytest.skip(  # only the original's Soul can be absent; the shipped Soul always runs
            f"the original's Eval Soul is reference data outside this repository, absent at {soul}"
        )
    loaded = cached_soul(soul, _code)
    assert len(_entries(cache)) == 1
    decoded = cached_soul(soul, _code)
    assert decoded == loaded == load_soul(soul)
    assert decoded is not loaded
    assert decoded.integrations or decoded.routines or decoded.agents


@pytest.mark.parametrize("example", ["langgraph-triage", "pydantic-ai-support"])
def test_a_soul_that_is_refused_is_refused_alike_on_the_next_command(
    cache: Path, example: str
) -> None:
    soul = ROOT / "examples" / example / "corpus" / "soul"
    messages = []
    for _ in range(2):
        with pytest.raises(SoulError) as refused:
            cached_soul(soul, _code)
        messages.append(str(refused.value))
    with pytest.raises(SoulError) as fresh:
        load_soul(soul)
    assert messages == [str(fresh.value)] * 2
    assert _entries(cache) == []


def test_one_changed_byte_is_a_miss_and_its_new_content_loads(cache: Path, tmp_path: Path) -> None:
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    before = cached_soul(soul, _code)
    agent = soul / "agents" / "support" / "AGENT.md"
    data = bytearray(agent.read_bytes())
    last = len(data.rstrip()) - 1  # the body's last character: one byte of what reaches the prompt
    data[last] = ord("#") if data[last] != ord("#") else ord("%")
    agent.write_bytes(bytes(data))
    after = cached_soul(soul, _code)
    assert after == load_soul(soul) != before
    assert len(_entries(cache)) == 2
    (soul / "guardrails.yaml").write_text("input: [\n")  # now refused: never from the cache
    with pytest.raises(SoulError, match=r"guardrails\.yaml: unreadable"):
        cached_soul(soul, _code)


def test_a_file_renamed_with_its_bytes_unchanged_is_a_miss(cache: Path, tmp_path: Path) -> None:
    """A file's name is keyed with its bytes: a Skill whose SKILL.md was renamed is refused as
    the loader refuses it, never answered with the Soul kept before the rename."""
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    assert cached_soul(soul, _code) == load_soul(soul)
    skill = soul / "skills" / "ticket-hygiene"
    (skill / "SKILL.md").rename(skill / "NOTES.md")
    with pytest.raises(SoulError, match=r"ticket-hygiene/SKILL\.md: missing"):
        cached_soul(soul, _code)


def test_a_pipe_added_to_a_kept_soul_is_refused_as_the_loader_refuses_it(
    cache: Path, tmp_path: Path
) -> None:
    """A named pipe is no Soul file: the loader refuses the tree, so the cache must not answer
    for it with the Soul kept before the pipe appeared."""
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    cached_soul(soul, _code)
    assert len(_entries(cache)) == 1
    os.mkfifo(soul / "agents" / "support" / "notes.md")
    with pytest.raises(SoulError) as fresh:
        load_soul(soul)
    with pytest.raises(SoulError) as refused:
        cached_soul(soul, _code)
    assert str(refused.value) == str(fresh.value)
    assert "not a regular file" in str(refused.value)


def test_a_soul_past_the_loaders_entry_bound_is_never_keyed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The key walks the Soul's tree as the loader does, and stops where the loader's entry
    bound would: a tree past it is the loader's to refuse, never hashed whole first."""
    from agent_runtime.soul import files as soul_files

    entries = sum(1 for _ in EVAL_SOUL.rglob("*"))
    monkeypatch.setattr(soul_files, "MAX_ENTRIES", entries)
    assert soul_key(EVAL_SOUL, "code") is not None
    monkeypatch.setattr(soul_files, "MAX_ENTRIES", entries - 1)
    assert soul_key(EVAL_SOUL, "code") is None


def test_a_changed_runtime_code_is_a_miss(cache: Path, tmp_path: Path) -> None:
    """The same Soul bytes under another runtime's code are another entry: a Soul the new code
    would load differently is never decoded from what the old code kept."""
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    cached_soul(soul, lambda: "agent-runtime:old")
    [kept] = _entries(cache)
    assert cached_soul(soul, lambda: "agent-runtime:new") == load_soul(soul)
    assert [p for p in _entries(cache) if p != kept]  # the new code's own entry, written
    assert cached_soul(soul, lambda: "agent-runtime:old") == load_soul(soul)
    assert len(_entries(cache)) == 2


def test_a_corrupt_or_foreign_entry_is_a_miss(cache: Path, tmp_path: Path) -> None:
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    expected = cached_soul(soul, _code)
    [entry] = _entries(cache)
    for damage in (b"", b"\xc1not msgpack", entry.read_bytes()[:-7], b"\x00" * (5 << 20)):
        entry.write_bytes(damage)
        assert cached_soul(soul, _code) == expected
        assert entry.read_bytes() != damage  # rewritten by the fresh load
    other = tmp_path / "other"
    shutil.copytree(EVAL_SOUL, other)
    cached_soul(other, _code)
    [foreign] = [p for p in _entries(cache) if p != entry]
    entry.write_bytes(foreign.read_bytes())  # another Soul's entry under this one's name
    assert cached_soul(soul, _code).root == soul


ROUTINE = """\
id: daily-backlog-sweep
version: "1.0.0"
name: Daily backlog sweep
description: Reports tickets left open for more than three days.
start: Report
functions:
  - name: triageAgent
    operation: agent:triage
states:
  - name: Report
    type: operation
    end: true
    actions:
      - functionRef:
          refName: triageAgent
          arguments:
            prompt: List every open ticket older than three days and name the oldest.
"""


def test_a_soul_with_a_routine_is_kept_and_served_with_it(cache: Path, tmp_path: Path) -> None:
    """A Soul's Routines are kept with it (their own MessagePack) and decoded on the next
    command: a hit, the Routine whole, never a Soul that lost its Routines nor one that is
    loaded afresh on every command (the shipped Eval Soul has no Routine)."""
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    routine = soul / "routines" / "daily-backlog-sweep"
    routine.mkdir(parents=True)
    (routine / "routine.yaml").write_text(ROUTINE)
    loaded = load_soul(soul)
    assert list(loaded.routines) == ["daily-backlog-sweep"]
    uses = []
    for _ in range(2):  # the first keeps it, the second decodes it
        cache_use.forget()
        assert cached_soul(soul, _code) == loaded
        uses.append(_use())
    assert uses == ["miss", "hit"]
    assert len(_entries(cache)) == 1


def test_a_soul_that_would_not_decode_equal_is_never_kept(cache: Path, tmp_path: Path) -> None:
    """An agent's free-form front matter holding a YAML date (``ownership.since``): MessagePack
    carries it as text, so the decoded Soul would differ from what loaded. It is never kept,
    and every command gets the date, never the text a kept entry would hand back."""
    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    agent = soul / "agents" / "support" / "AGENT.md"
    head, rest = agent.read_text().split("\n", 1)
    agent.write_text(f"{head}\nownership:\n  since: 2024-05-17\n{rest}")
    since = load_soul(soul).agents["support"].ownership["since"]
    assert since == datetime.date(2024, 5, 17)
    for _ in range(2):
        cache_use.forget()
        assert cached_soul(soul, _code).agents["support"].ownership["since"] == since
        assert _use() == "miss"
    assert _entries(cache) == []


def test_with_caches_off_nothing_is_kept(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_CACHE", "off")
    assert cached_soul(EVAL_SOUL, _code) == load_soul(EVAL_SOUL)
    assert _entries(cache) == []


SWEEP = """
import json, runpy, sys
sys.argv = ["eval", "sweep", "--quiet", "--case", "finance-refund-is-blocklisted"]
try:
    runpy.run_module("eval_cli", run_name="__main__")
except SystemExit as done:
    code = done.code
print(json.dumps([code, "yaml" in sys.modules]), file=sys.stderr)
"""


def test_a_scripted_sweep_with_a_warm_cache_never_imports_yaml(tmp_path: Path) -> None:
    env = {**os.environ, "EVAL_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("EVAL_CACHE", None)
    results = []
    for _ in range(2):  # the first fills the caches, the second reads them
        out = subprocess.run(
            [sys.executable, "-c", SWEEP],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        results.append(json.loads(out.stderr.strip().splitlines()[-1]))
    assert results == [[0, True], [0, False]], results  # a cold Soul is parsed: YAML loads


def _use() -> str:
    return cache_use.used().get(CACHE_NAME, "none")


def test_each_input_of_the_key_changed_alone_is_a_miss(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Soul's bytes, the runtime's code (an edited copy, digested as the Host digests it)
    and the interpreter (another executable, as :func:`eval_core._util.cache_key.interpreter`
    reads it): each alone is a miss; unchanged, a hit (issue 44: a warm Soul keyed without the
    runtime's code hid a Soul-loader regression)."""
    import agent_runtime

    soul = tmp_path / "soul"
    shutil.copytree(EVAL_SOUL, soul)
    runtime = tmp_path / "agent_runtime"
    shutil.copytree(Path(agent_runtime.__file__).parent, runtime)
    code = fingerprint_at("agent-runtime", (str(runtime),)).digest

    def use(**changed: object) -> str:
        cache_use.forget()
        cached_soul(soul, lambda: str(changed.get("code", code)))
        return _use()

    assert (use(), use()) == ("miss", "hit")
    with (soul / "soul.yaml").open("a") as edited:
        edited.write("\n")
    assert (use(), use()) == ("miss", "hit")
    with (runtime / "soul.py").open("a") as edited:
        edited.write("\n\ndef _probe() -> int:\n    return 1\n")
    edited_code = fingerprint_at("agent-runtime", (str(runtime),)).digest
    assert edited_code != code
    assert (use(code=edited_code), use(code=edited_code)) == ("miss", "hit")
    monkeypatch.setattr(sys, "executable", sys.executable + "-another")
    assert use(code=edited_code) == "miss"


def test_past_its_limit_the_oldest_entries_go_and_the_newest_still_hit(cache: Path) -> None:
    """One entry per runtime code (each edit of the runtime is a new key): past :data:`KEPT`
    the oldest are removed, never the newest, so a cache that is never pruned, or pruned from
    the wrong end, is a test failure, not a full disk or a cold Sweep."""
    written: list[Path] = []
    for n in range(KEPT + 2):
        before = set(_entries(cache))
        cached_soul(EVAL_SOUL, lambda n=n: f"agent-runtime:{n}")
        [new] = set(_entries(cache)) - before
        os.utime(new, ns=(n * 10**9, n * 10**9))  # an order no coarse file clock can blur
        written.append(new)
    assert _entries(cache) == sorted(written[-KEPT:])
    for n, expected in ((KEPT + 1, "hit"), (2, "hit"), (0, "miss")):
        cache_use.forget()
        assert cached_soul(EVAL_SOUL, lambda n=n: f"agent-runtime:{n}") == load_soul(EVAL_SOUL)
        assert _use() == expected, n


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.builds(lambda b: seal(b) or b"", st.binary(max_size=300)),
        st.builds(lambda n: seal(b"\x91" * n + b"\xc0") or b"", st.integers(0, 5000)),
    )
)
def test_any_bytes_as_the_kept_soul_load_the_soul_itself(cache: Path, data: bytes) -> None:
    """The Soul's fuzz target: whatever bytes stand as its entry (sealed or not, nested past
    any limit), the Soul is the one the loader loads, never an error."""
    cached_soul(EVAL_SOUL, _code)
    for entry in _entries(cache):
        entry.write_bytes(data)
    assert cached_soul(EVAL_SOUL, _code) == load_soul(EVAL_SOUL)
