"""The team's code cannot end or hang the harness, nor forge its exit code (issue 45, class 3).

Each test runs the real ``eval`` over a tiny team project in ``tmp_path``: a pydantic-ai agent
whose one Tool does what its argument says (end the process with ``os._exit``, call
``sys.exit``, raise a ``BaseException``, leave a non-daemon thread running, sleep past the
Host's ``timeout``, block the loop). The Sweep runs on forked children (the Host runs the
team's code): the Trial errors in one line, the other Trials still run, and the exit code is
the parent's (1: NOT CLEARED), never the team's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hostile_team import probe_case

EVAL = str(Path(sys.executable).parent / "eval")
TIMEOUT = 2  # the Host's timeout option, seconds

APP = '''
import asyncio, os, sys, threading, time
from pydantic_ai import Agent

class Odd(BaseException):
    """Not an Exception: nothing that catches Exception stops it."""

def act(how: str) -> str:
    """Do what the Case asks."""
    if how == "os_exit":
        os._exit(0)
    if how == "sys_exit0":
        sys.exit(0)
    if how == "sys_exit3":
        sys.exit(3)
    if how == "base":
        raise Odd("odd")
    if how == "interrupt":
        raise KeyboardInterrupt("the team's")
    if how == "thread":
        threading.Thread(target=time.sleep, args=(3600,)).start()
    if how == "sleep":
        time.sleep(3600)
    return "done " + how

async def block(how: str) -> str:
    """An async Tool that blocks the event loop."""
    time.sleep(3600)
    return how

AGENTS = {"probe": Agent(name="probe", instructions="Probe.", tools=[act, block])}
'''


HELP_SERVER = (
    Path(__file__).parents[3] / "examples/pydantic-ai-support/support_agent/help_server.py"
)

MCP_APP = f'''
import os, sys
from fastmcp.client.transports import PythonStdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset

help_centre = MCPToolset(
    PythonStdioTransport({str(HELP_SERVER)!r}, python_cmd=sys.executable), id="help"
)

def act(how: str) -> str:
    """Do what the Case asks."""
    if how == "os_exit":
        os._exit(0)
    return "done " + how

probe = Agent(name="probe", instructions="Probe.", tools=[act], toolsets=[help_centre])
AGENTS = {{"probe": probe}}
'''


def _project(
    root: Path, cases: list[str], app: str = APP, tool: str = "act", timeout: float = TIMEOUT
) -> Path:
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "probe"\nversion = "0"\n\n[tool.eval]\napp = "probe_app:AGENTS"\n'
        f"timeout = {timeout}\n"
    )
    (root / "probe_app.py").write_text(app)
    corpus = root / "corpus"
    corpus.mkdir()
    for how in cases:
        name, arguments = (
            ("search_help", {"query": "returns"}) if "help" in how else (tool, {"how": how})
        )
        case = probe_case(how.replace("_", "-"), name, arguments)
        (corpus / f"{case['id']}.json").write_text(json.dumps(case))
    return corpus


def _eval(
    cwd: Path, *args: str, limit: float = 60
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [EVAL, *args, "--host", "pydantic-ai", "--unlocked", "-q"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=limit,
    )
    return done, time.monotonic() - started


def _trials(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    card = json.loads(done.stdout)
    return {t["caseId"]: t for t in card["trials"]}


def test_the_teams_code_ends_its_trial_never_the_sweep_nor_its_exit_code(tmp_path: Path) -> None:
    _project(
        tmp_path,
        ["ok", "os_exit", "sys_exit0", "sys_exit3", "base", "interrupt", "thread", "sleep"],
    )
    done, took = _eval(tmp_path, "sweep", "corpus", "--format", "json")
    assert done.returncode == 1, done.stderr[-2000:]  # NOT CLEARED: not 0, not the team's 3
    trials = _trials(done)
    assert {c: t["outcome"] for c, t in trials.items()} == {
        "ok": "passed",
        "os-exit": "errored",
        "sys-exit0": "errored",
        "sys-exit3": "errored",
        "base": "errored",
        "interrupt": "errored",
        "thread": "passed",
        "sleep": "errored",
    }
    errors = {c: t["error"] for c, t in trials.items() if t["outcome"] == "errored"}
    assert all("\n" not in e for e in errors.values())
    assert "worker process exited with status 0 during the Trial" in errors["os-exit"]
    assert "called sys.exit(0)" in errors["sys-exit0"]
    assert "called sys.exit(3)" in errors["sys-exit3"]
    assert "raised Odd (a BaseException" in errors["base"]
    assert "KeyboardInterrupt: the team's (a BaseException" in errors["interrupt"]
    assert f"outlived its bound of {TIMEOUT} s" in errors["sleep"]
    assert 1.5 <= trials["sleep"]["durationMs"] / 1000 < TIMEOUT + 2
    assert "Traceback" not in done.stderr
    # the thread left sleeping for an hour keeps nothing alive: eval ends after the Scorecard
    assert took < 40


def test_an_async_tool_blocking_the_loop_errors_at_the_deadline(tmp_path: Path) -> None:
    _project(tmp_path, ["a", "b"], tool="block")
    done, took = _eval(tmp_path, "sweep", "corpus", "--format", "json")
    assert done.returncode == 1, done.stderr[-2000:]
    trials = _trials(done)
    assert [t["outcome"] for t in trials.values()] == ["errored", "errored"]
    assert all(t["durationMs"] / 1000 < TIMEOUT + 3 for t in trials.values())
    assert took < 40


def test_an_explicit_fork_executor_runs_the_pydantic_ai_host(tmp_path: Path) -> None:
    """The child has no thread of the parent's loop: it starts its own (it used to wait for
    the parent's until the timeout)."""
    _project(tmp_path, ["ok", "os_exit"])
    done, _ = _eval(tmp_path, "sweep", "corpus", "--format", "json", "--executor", "fork")
    assert done.returncode == 1, done.stderr[-2000:]
    trials = _trials(done)
    assert trials["ok"]["outcome"] == "passed" and trials["ok"]["durationMs"] < 1000
    assert trials["os-exit"]["outcome"] == "errored"


def test_an_app_whose_import_calls_sys_exit_is_refused_in_one_line(tmp_path: Path) -> None:
    _project(tmp_path, ["ok"], app="import sys\nsys.exit(0)\n")
    done, _ = _eval(tmp_path, "sweep", "corpus")
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if not line.startswith("UNLOCKED")]
    assert len(lines) == 1 and "importing probe_app called sys.exit(0)" in lines[0], lines


def test_an_app_whose_import_hangs_is_refused_at_the_load_deadline(tmp_path: Path) -> None:
    """A hang at import is bounded: one line naming the bound, exit 2, within seconds."""
    _project(tmp_path, ["ok"], app="import time\ntime.sleep(3600)\n")
    started = time.monotonic()
    done = subprocess.run(
        [EVAL, "sweep", "corpus", "--host", "pydantic-ai", "--unlocked", "-q"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env={**os.environ, "EVAL_HOST_LOAD_SECONDS": "2"},
    )
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if not line.startswith("UNLOCKED")]
    assert len(lines) == 1 and "did not load its agents within 2 s" in lines[0], lines
    assert time.monotonic() - started < 30


def test_a_thread_the_app_leaves_running_does_not_keep_eval_alive(tmp_path: Path) -> None:
    """A non-daemon thread started at import lives in eval's own process: eval still ends
    with its own code once the Scorecard is out."""
    app = APP + "\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n"
    _project(tmp_path, ["ok"], app=app)
    done, took = _eval(tmp_path, "sweep", "corpus", "--format", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert _trials(done)["ok"]["outcome"] == "passed"
    assert took < 40


def test_the_agents_mcp_servers_serve_every_child(tmp_path: Path) -> None:
    """The parent lets go of the agent's MCP server before forking; each child (the first, and
    the one that replaces it after os._exit) enters it again on its own loop."""
    # run in this order; each child starts the MCP server again (a Python process importing the
    # MCP SDK), which on a loaded machine outlasts the 2 s the other tests give a Trial
    _project(tmp_path, ["a_help", "os_exit", "z_help"], app=MCP_APP, timeout=20)
    done, _ = _eval(tmp_path, "sweep", "corpus", "--format", "json")
    assert done.returncode == 1, done.stderr[-2000:]
    trials = _trials(done)
    assert list(trials) == ["a-help", "os-exit", "z-help"]
    outcomes = [t["outcome"] for t in trials.values()]
    assert outcomes == ["passed", "errored", "passed"], [t.get("error") for t in trials.values()]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"tier": "l3"}, "$.tier", "Host 'pydantic-ai' offers l2 only; this Case is l3"),
        (  # a Case that cannot measure the agent here, refused rather than FAILed at run time
            {"toolResults": [{"name": "act", "approvalId": "a1"}]},
            "$.toolResults[0].approvalId",
            "Host 'pydantic-ai' parks no Tool call: approvalId needs a runtime that waits for an "
            "approval or a retry",
        ),
    ],
    ids=["l3", "approval-wait"],
)
def test_a_case_the_host_cannot_run_is_refused_by_the_real_eval_naming_file_path_and_reason(
    tmp_path: Path, change: dict[str, object], path: str, reason: str
) -> None:
    """The core's checks of what a Host offers (``tiers``, ``parks_calls``): exit 2, no
    traceback, one line naming the file, the JSON path and why."""
    corpus = _project(tmp_path, ["ok"])
    case = corpus / "ok.json"
    case.write_text(json.dumps({**json.loads(case.read_text()), **change}))
    done, _ = _eval(tmp_path, "sweep", "corpus")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    said = [line.strip() for line in done.stderr.splitlines() if "$." in line]
    assert said == [f"{Path('corpus', 'ok.json')}: {path}: {reason}"], done.stderr
