"""`eval init --host pydantic-ai` in a team's project that has only its agent: the starter
Cases name the agent and the Tools pydantic-ai offers, need no Eval Soul, and `eval sweep`
from the project's folder (no path, no flag) clears."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from tests.bench_scripts import bench_script
from tests.conftest import judgeless_env, run_eval

AGENT: str = bench_script("first_sweep").AGENT
"""The team's agent the first-Sweep bench times: the same project, checked here in seconds."""


def test_init_then_sweep_clears_for_a_pydantic_ai_agent(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "weather"\nversion = "0.1.0"\n')
    (tmp_path / "weather_agent").mkdir()
    (tmp_path / "weather_agent" / "__init__.py").write_text("")
    (tmp_path / "weather_agent" / "agent.py").write_text(AGENT)
    env = judgeless_env(EVAL_CACHE="off")
    app = "weather_agent.agent:AGENTS"
    made = run_eval("init", "--host", "pydantic-ai", "--app", app, cwd=tmp_path, env=env)
    assert made.returncode == 0, made.stdout + made.stderr
    assert not (tmp_path / "corpus" / "soul").exists()  # the agent is the team's code
    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["eval"]
    assert settings == {"corpus": "corpus", "host": "pydantic-ai", "app": app}
    cases = [json.loads(p.read_text()) for p in sorted((tmp_path / "corpus").glob("*.json"))]
    assert {c["agent"] for c in cases} == {"travel"}
    named = {e.get("name") for c in cases for e in c["expect"]} - {None}
    assert named <= {"get_weather", "book_trip"} and named
    assert any(e["kind"] == "tool_not_called" for c in cases for e in c["expect"])
    swept = run_eval("sweep", cwd=tmp_path, env=env)
    assert swept.returncode == 0, swept.stdout + swept.stderr
    assert f"{len(cases)} passed, 0 failed, 0 errored" in swept.stdout
