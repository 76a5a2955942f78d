"""The fork-server: a Python agent's imports made once by a zygote, a fresh process forked per
Trial. Two Trials share no module state; a zygote that dies or hangs while importing errors
its agent's Trials in one line and leaves nothing; it ends with the Host, and with the harness
when the harness is killed. Real zygotes, real processes, a real loopback server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eval_core.hosts import Loader, PluginSet
from eval_core.records import Scorecard
from eval_host_process.fork_server import target_of
from eval_host_process.host import ProcessHost
from process_project import AGENT, RUN, write_project
from test_robustness import _marked

TALLY = """
import os

IMPORTED_BY = os.getpid()  # the process that imported this module
SEEN = []  # what the Trials of this process appended
"""

STATE_AGENT = """
import json
import sys

import tally

document = json.loads(sys.stdin.read())
tally.SEEN.append(document["case"])
leaked = getattr(json, "eval_trial", None)
json.eval_trial = document["case"]  # state put on a module imported by the zygote
answer = {"imported_by": tally.IMPORTED_BY, "pid": __import__("os").getpid(),
          "seen": tally.SEEN, "leaked": leaked, "argv": sys.argv[1:]}
print(json.dumps({"answer": json.dumps(answer), "status": "completed"}))
"""

BROKEN = {
    "dies": 'import sys, os\nprint("tally: no licence", file=sys.stderr)\nos._exit(3)\n',
    # what it prints on stdout first is not the zygote's own line: it still waits for that
    "hangs": "import time\nprint('ready', flush=True)\ntime.sleep(3600)\n",
}


def _project(root: Path, start: str, timeout: float = 20) -> Path:
    corpus = write_project(root, timeout=timeout, start=start)
    (root / "tally.py").write_text(TALLY)
    (root / "state_agent.py").write_text(STATE_AGENT)
    agents = f'\n[agents.state]\ncommand = "{sys.executable} state_agent.py one two"\n'
    for name, module in BROKEN.items():
        (root / f"{name}.py").write_text(module)
        (root / f"{name}_agent.py").write_text(f"import {name}\nprint('never')\n")
        agents += f'\n[agents.{name}]\ncommand = "{sys.executable} {name}_agent.py"\n'
    with (root / "agents.toml").open("a") as manifest:
        manifest.write(agents)
    return corpus


def _case(case_id: str, agent: str) -> dict[str, Any]:
    return {
        "id": case_id,
        "tier": "l2",
        "agent": agent,
        "input": [{"role": "user", "content": "Hello"}],
        "script": [{"kind": "text", "text": "x"}],
        "expect": [{"kind": "loop_status", "status": "completed"}],
    }


def _sweep(
    plugins: PluginSet, corpus: Path, cases: list[dict[str, Any]], **more: Any
) -> tuple[Scorecard, dict[str, Any]]:
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding

    for case in cases:
        (corpus / f"{case['id']}.json").write_text(json.dumps(case))
    host = ProcessHost(corpus)
    seen: dict[str, Any] = {}
    try:
        loaded = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
        card = run_sweep(
            loaded,
            host,
            ScriptedBinding(),
            plugins,
            on_evidence=lambda c, e: seen.__setitem__(c.id, e),
            **more,
        )
    finally:
        host.close()
    return card, seen


@pytest.mark.parametrize("start", ["fork-server", "spawn"])
def test_two_trials_share_no_module_state(
    plugins: PluginSet, tmp_path: Path, start: str, run_mark: str
) -> None:
    corpus = _project(tmp_path / "team", start)
    cases = [_case("first", "state"), _case("second", "state")]
    card, seen = _sweep(plugins, corpus, cases, jobs=2)
    assert [t.outcome for t in card.trials] == ["passed", "passed"], card.trials
    said = {case: json.loads(seen[case].output_text) for case in ("first", "second")}
    for case, answer in said.items():
        # each Trial saw its own append only, and nothing another Trial put on a module
        assert (answer["seen"], answer["leaked"], answer["argv"]) == ([case], None, ["one", "two"])
    assert said["first"]["pid"] != said["second"]["pid"]
    imported = {answer["imported_by"] for answer in said.values()}
    if start == "fork-server":  # imported once, by the zygote, and forked from there
        assert len(imported) == 1 and imported.isdisjoint(a["pid"] for a in said.values())
    else:  # each agent imported it itself
        assert imported == {a["pid"] for a in said.values()}
    assert _marked(run_mark) == []  # the zygote ended with the Host


TALLY_SERVER = """
import os

from mcp.server.fastmcp import FastMCP

import tally

server = FastMCP("tally")


@server.tool()
def count(name: str) -> dict:
    \"\"\"Count a name.\"\"\"
    tally.SEEN.append(name)
    return {"seen": tally.SEEN, "pid": os.getpid(), "imported_by": tally.IMPORTED_BY}


if __name__ == "__main__":
    server.run()
"""


def test_the_team_s_tool_server_is_fresh_in_every_trial(
    plugins: PluginSet, tmp_path: Path, run_mark: str
) -> None:
    """Its stdio server forked per Trial too (a Python one): what one Trial made it remember
    never reaches the next, and it imported its imports once (the load's listing started it:
    the same session code, spawned)."""
    root = tmp_path / "team"
    corpus = _project(root, "fork-server")
    (root / "tally_server.py").write_text(TALLY_SERVER)
    with (root / "pyproject.toml").open("a") as settings:
        settings.write(f'tools_server = "{sys.executable} tally_server.py"\n')
    with (root / "agents.toml").open("a") as manifest:
        agent = f"{sys.executable} {AGENT} chat"
        manifest.write(f'\n[agents.counting]\ncommand = "{agent}"\ntools = ["count"]\n')
    cases = []
    for name in ("first", "second"):
        case = _case(name, "counting")
        call = {"callId": "c1", "name": "count", "arguments": {"name": name}}
        case["script"] = [{"kind": "tool_calls", "calls": [call]}, {"kind": "text", "text": "x"}]
        cases.append(case)
    card, seen = _sweep(plugins, corpus, cases)
    assert [t.outcome for t in card.trials] == ["passed", "passed"], card.trials
    said = {name: seen[name].tool_results[0].output for name in ("first", "second")}
    assert [said[name]["seen"] for name in said] == [["first"], ["second"]]
    assert said["first"]["pid"] != said["second"]["pid"]
    imported = {answer["imported_by"] for answer in said.values()}
    assert len(imported) == 1 and imported.isdisjoint(a["pid"] for a in said.values())
    assert _marked(run_mark) == []


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        (
            "dies",
            "exited with status 3 while importing what the agent imports (stderr: tally: no "
            "licence); host option start=spawn starts the agent per Trial instead",
        ),
        (
            "hangs",
            "did not import what the agent imports within 2 s; it was ended "
            "(EVAL_HOST_LOAD_SECONDS sets the bound)",
        ),
    ],
)
def test_a_zygote_that_dies_or_hangs_errors_its_trials_in_one_line(
    plugins: PluginSet,
    tmp_path: Path,
    agent: str,
    error: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("EVAL_HOST_LOAD_SECONDS", "2")  # as a Host's load of the team's code
    corpus = _project(tmp_path / "team", "fork-server")
    card, _ = _sweep(plugins, corpus, [_case("one", agent), _case("two", agent)])
    command = f"{sys.executable} {agent}_agent.py"
    expected = f"AgentError: the agent's fork-server ({command}) {error}"
    assert [t.outcome for t in card.trials] == ["errored"] * 2
    for trial in card.trials:  # the same line for each (the zygote is not started again)
        assert (trial.error or "").startswith(expected) and "\n" not in (trial.error or "")
    assert _marked(os.environ[RUN]) == []


def test_the_zygote_ends_when_the_harness_is_killed(tmp_path: Path, run_mark: str) -> None:
    """Not closed, only killed (SIGKILL: no finally runs): the zygote sees its lifeline end."""
    _project(tmp_path / "team", "fork-server")
    harness = (
        "import sys\nfrom pathlib import Path\n"
        "from eval_host_process.fork_server import ForkServers\n"
        f"forks = ForkServers(Path({str(tmp_path / 'team')!r}), "
        f"{{'PATH': '', {RUN!r}: {run_mark!r}}}, 20)\n"
        f"server = forks.server_for([{sys.executable!r}, 'state_agent.py'])\n"
        "print(server._zygote.pid, flush=True)\nsys.stdin.read()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", harness], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert child.stdout is not None
    zygote = int(child.stdout.readline())
    assert zygote in _marked(run_mark)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    for _ in range(500):  # bounded: 10 s at most, never a timing assertion
        if zygote not in _marked(run_mark):
            break
        time.sleep(0.02)
    assert _marked(run_mark) == []


THREADED = """
import os
import threading
import time

IMPORTED_BY = os.getpid()
threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
"""

THREADED_AGENT = """
import json, os, sys

import threaded

sys.stdin.read()
answer = {"imported_by": threaded.IMPORTED_BY, "pid": os.getpid()}
print(json.dumps({"answer": json.dumps(answer), "status": "completed"}))
"""


def test_an_agent_whose_imports_start_a_thread_is_started_per_trial(
    plugins: PluginSet, tmp_path: Path, run_mark: str
) -> None:
    """A fork copies only the thread that forks (a lock another held stays held): such a
    zygote says so, and the command is started per Trial instead, green."""
    root = tmp_path / "team"
    corpus = _project(root, "fork-server")
    (root / "threaded.py").write_text(THREADED)
    (root / "threaded_agent.py").write_text(THREADED_AGENT)
    with (root / "agents.toml").open("a") as manifest:
        manifest.write(f'\n[agents.threaded]\ncommand = "{sys.executable} threaded_agent.py"\n')
    card, seen = _sweep(plugins, corpus, [_case("threaded", "threaded")])
    assert [t.outcome for t in card.trials] == ["passed"], card.trials
    answer = json.loads(seen["threaded"].output_text)
    assert answer["imported_by"] == answer["pid"]  # imported by the agent's own process
    assert _marked(run_mark) == []


@pytest.mark.parametrize(
    ("argv", "forked"),
    [
        (["python", "-m", "desk.agent", "--stream"], ("-m", "desk.agent", ("--stream",))),
        (["/usr/bin/python3.12", "agent.py", "chat"], ("path", "agent.py", ("chat",))),
        (["python3", "-u", "agent.py"], None),  # an interpreter option: started per Trial
        (["node", "dist/agent.js"], None),
        (["python", "-c", "print(1)"], None),
        (["python", "-m", "not a module"], None),
        (["python"], None),
    ],
)
def test_which_commands_the_fork_server_forks(
    argv: list[str], forked: tuple[str, str, tuple[str, ...]] | None
) -> None:
    target = target_of(argv)
    assert (target and (target.mode, target.name, target.args)) == forked


NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
ARGS = st.lists(st.text(min_size=0, max_size=8), max_size=4)


@given(
    python=st.sampled_from(["python", "python3", "/opt/py/bin/python3.12"]),
    parts=st.lists(NAMES, min_size=1, max_size=4),
    args=ARGS,
)
def test_any_plain_module_command_is_forked_with_its_arguments(
    python: str, parts: list[str], args: list[str]
) -> None:
    """``python -m a.b.c ARGS...``: the zygote's key is the interpreter and the module, and the
    agent's ``sys.argv`` gets the arguments unchanged, whatever they are."""
    target = target_of([python, "-m", ".".join(parts), *args])
    assert target is not None
    assert (target.key, target.args) == ((python, "-m", ".".join(parts)), tuple(args))


OPTIONS = st.text(max_size=7).map(lambda t: "-" + t).filter(lambda o: o != "-m")


@given(first=OPTIONS, args=ARGS)
def test_an_interpreter_option_is_never_forked(first: str, args: list[str]) -> None:
    """An option before the module or script (``-u``, ``-X dev``...) applies to a whole
    interpreter's start, which a fork does not have: such a command is started per Trial."""
    assert target_of(["python", first, *args]) is None
