"""``eval record`` through the framework Hosts, on their example apps (a team's project in a
temp dir): an example Case with its script taken away is recorded from a loopback model
through pydantic-ai's or LangGraph's own loop, replays free with the real run's verdicts; an
edit of the app's own prompt is drift (``eval check --drift`` names the line). (A Tool renamed
is refused at load by the Host-agnostic Tool name check: ``test_record_loopback.py``.)"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from record_fixtures import KEY, ScriptedVendor, logged_path, scorecard, verdicts_in_log
from tests.conftest import ROOT, judgeless_env, loopback_models, run_eval


@dataclass(frozen=True)
class Example:
    folder: str
    case: str
    prompt: tuple[str, str, str]  # file, old, new: one more line in the app's prompt
    added: str  # how the drift note quotes the change


PYDANTIC_AI = Example(
    "pydantic-ai-support",
    "order-status-is-looked-up",
    (
        "support_agent/agent.py",
        '"Look an order up with',
        '"Always answer in French. Look an order up with',
    ),
    "1 line(s) added ('You are Acme Outdoor support. Help customers with their orders and with our",
)
LANGGRAPH = Example(
    "langgraph-triage",
    "arguments-ticket-id-is-passed-verbatim",
    (
        "src/langgraph_triage/agents.py",
        "otherwise normal.\n",
        "otherwise normal.\nAlways answer in French.\n",
    ),
    "1 line(s) added ('Always answer in French.'), 0 removed",
)


def edit(root: Path, file: str, old: str, new: str) -> None:
    path = root / file
    source = path.read_text()
    assert old in source, f"{file} no longer has {old!r}: update this test"
    path.write_text(source.replace(old, new))


@pytest.mark.parametrize("example", [PYDANTIC_AI, LANGGRAPH], ids=["pydantic-ai", "langgraph"])
def test_a_case_recorded_through_the_framework_s_loop_replays_and_drifts(
    example: Example, tmp_path: Path
) -> None:
    root = tmp_path / example.folder
    shutil.copytree(
        ROOT / "examples" / example.folder,
        root,
        ignore=shutil.ignore_patterns("__pycache__", ".venv"),
    )
    path = root / "corpus" / f"{example.case}.json"
    original = json.loads(path.read_text())
    behaviour = original.pop("script")  # what the loopback model does: the example's own script
    path.write_text(json.dumps(original, indent=2) + "\n")
    vendor = ScriptedVendor([{**original, "script": behaviour}])
    loopback_models(root / "models.toml", "RECORD_KEY", loop=vendor.url)
    env = judgeless_env(RECORD_KEY=KEY)

    def run(*args: str | Path) -> Any:
        return run_eval(*args, cwd=root, env=env, timeout=240)

    try:
        done = run(
            "record", "--unlocked", "--models", "models.toml", "--max-tokens-per-trial", "10000",
            "--case", example.case, "--model", "loop",
        )  # fmt: skip
    finally:
        vendor.close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"RECORDED {example.case}  {len(behaviour)} step(s) from loop (PASS)" in done.stdout
    recorded = json.loads(path.read_text())
    assert recorded["script"] == behaviour  # as the framework's model interface received it
    assert {k: v for k, v in recorded.items() if k not in ("script", "recorded")} == original
    real = verdicts_in_log(root / logged_path(done.stdout))[example.case]

    replay = run("sweep", "--unlocked", "--case", example.case, "--format", "json")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    [trial] = scorecard(replay.stdout)["trials"]
    assert [(e["kind"], e["passed"]) for e in trial["expectations"]] == real
    assert trial["outcome"] == "passed" and "notes" not in trial

    edit(root, *example.prompt)  # the team edits its agent's prompt
    drift = run("check", "--unlocked", "--drift")
    assert drift.returncode == 1, drift.stdout + drift.stderr
    assert f"STALE  {example.case}\n" in drift.stdout
    assert "the system prompt changed: " + example.added in drift.stdout
    assert "drift: 1 of 1 recorded Case(s) stale" in drift.stdout
