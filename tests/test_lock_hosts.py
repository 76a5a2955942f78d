"""A lock pins what can change a Sweep on its Host: another team's framework Host, installed
beside ours (the `hosts` group), is neither pinned nor required (a default install has none)."""

from __future__ import annotations

import json
from pathlib import Path

from eval_core._loading.opening import plugins
from eval_core._plugins import lock

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORK_HOSTS = {"eval-host-pydantic-ai", "eval-host-langgraph", "eval-host-process"}


def _pinned(path: Path) -> set[str]:
    return {row["distribution"] for row in json.loads(path.read_text())["plugins"]}


def test_a_lock_pins_its_own_host_and_no_other() -> None:
    found = plugins()
    assert {info.distribution for info in found.plugins} >= FRAMEWORK_HOSTS  # all installed here
    ours = {row.distribution for row in lock.current(found, "agent-runtime").plugins}
    assert "eval-host-agent-runtime" in ours and not ours & FRAMEWORK_HOSTS
    theirs = {row.distribution for row in lock.current(found, "langgraph").plugins}
    assert "eval-host-langgraph" in theirs
    assert not theirs & {"eval-host-agent-runtime", "eval-host-pydantic-ai", "eval-host-process"}
    every = {row.distribution for row in lock.current(found).plugins}
    assert every == ours | FRAMEWORK_HOSTS  # without a Host, the whole installed set
    # kinds and fields are pinned whatever the Host
    assert {r.distribution for r in lock.current(found, "langgraph").plugins if r.kinds} == {
        r.distribution for r in lock.current(found, "agent-runtime").plugins if r.kinds
    }


def test_the_committed_locks_pin_the_host_each_corpus_is_swept_on() -> None:
    shipped = _pinned(ROOT / "corpus" / "eval.lock")
    assert "eval-host-agent-runtime" in shipped and not shipped & FRAMEWORK_HOSTS
    for example, host in (
        ("pydantic-ai-support", "eval-host-pydantic-ai"),
        ("langgraph-triage", "eval-host-langgraph"),
        ("openai-agents-desk", "eval-host-process"),
        ("ts-support-agent", "eval-host-process"),
    ):
        pinned = _pinned(ROOT / "examples" / example / "corpus" / "eval.lock")
        assert host in pinned and "eval-host-agent-runtime" not in pinned


def test_an_unknown_host_is_named_before_the_lock_is_read_for_it() -> None:
    """The lock is read for the Host the Sweep runs on: a Host nobody offers is that Host's
    refusal, not a list of lock differences."""
    import subprocess
    import sys

    ran = subprocess.run(
        [sys.executable, "-m", "eval_cli", "sweep", "corpus", "--host", "nope"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines()[-1] == (
        "unknown Host 'nope'; installed Hosts: agent-runtime, langgraph, process, pydantic-ai"
    )
