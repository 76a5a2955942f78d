"""The team's code cannot hang or end the harness (issue 45, class 3), through the real
``eval``: a LangGraph Tool that blocks the graph's own event loop (so the Host's
``asyncio.timeout`` can never fire) is ended by the Sweep's deadline, its forked child killed;
one that calls ``os._exit`` errors its Trial; the other Trials still run and the exit code is
the parent's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hostile_team import probe_case

EVAL = str(Path(sys.executable).parent / "eval")
TIMEOUT = 1  # the Host's timeout option, seconds

PROBE = """def probe(model):
    bound = model.bind_tools([act])
    graph = StateGraph(MessagesState)
    graph.add_node("assistant", lambda state: {"messages": [bound.invoke(state["messages"])]})
    graph.add_node("tools", ToolNode([act]))
    graph.add_edge(START, "assistant")
    graph.add_conditional_edges("assistant", tools_condition)
    graph.add_edge("tools", "assistant")
    return graph.compile()

AGENTS = {"probe": probe}
"""
"""The one-Tool graph each team project below ends with: a model bound to ``act``, its
ToolNode and the loop between them."""

APP = (
    '''
import os, time
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

@tool
async def act(how: str) -> str:
    """Do what the Case asks."""
    if how == "block":
        time.sleep(3600)  # blocks the loop: no timeout of the loop's can end it
    if how == "os_exit":
        os._exit(0)
    return "done " + how

'''
    + PROBE
)


def _act_project(root: Path, module: str, app: str, hows: tuple[str, ...], extra: str = "") -> None:
    """A team project in ``root``: ``module`` holds ``app`` and its Corpus one Case per ``how``,
    whose script calls the Tool ``act`` with it (the Case's id: ``how``, ``-`` for ``_``);
    ``extra`` ends the ``[tool.eval]`` table."""
    (root / "pyproject.toml").write_text(
        '[project]\nname = "probe"\nversion = "0"\n\n[tool.eval]\n'
        f'app = "{module}:AGENTS"\npythonpath = ["."]\n{extra}'
    )
    (root / f"{module}.py").write_text(app)
    corpus = root / "corpus"
    corpus.mkdir()
    for how in hows:
        case = probe_case(how.replace("_", "-"), "act", {"how": how})
        (corpus / f"{case['id']}.json").write_text(json.dumps(case))


def _sweep(root: Path, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``eval sweep corpus --host langgraph --unlocked -q FLAGS`` in ``root``, its output as
    text; ``env`` is added to this process's environment."""
    return subprocess.run(
        [EVAL, "sweep", "corpus", "--host", "langgraph", "--unlocked", "-q", *flags],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=90,
        env={**os.environ, **env},
    )


def test_a_tool_blocking_the_loop_is_ended_at_the_deadline(tmp_path: Path) -> None:
    _act_project(tmp_path, "probe_graph", APP, ("block", "os_exit", "ok"), f"timeout = {TIMEOUT}\n")
    started = time.monotonic()
    done = _sweep(tmp_path, "--format", "json")
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr[-2000:]
    trials = {t["caseId"]: t for t in json.loads(done.stdout)["trials"]}
    assert {c: t["outcome"] for c, t in trials.items()} == {
        "block": "errored",
        "os-exit": "errored",
        "ok": "passed",
    }
    blocked = trials["block"]
    assert (
        "outlived the Host's deadline (1 s, +2 s): its worker process was killed"
        in (blocked["error"])
    )
    assert blocked["durationMs"] / 1000 < TIMEOUT + 4
    assert "worker process exited with status 0" in trials["os-exit"]["error"]
    assert "Traceback" not in done.stderr
    assert took < 60


NOISY = (
    '''
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

class Ended(GeneratorExit):
    """Raised through LangGraph's async generators: asyncio has a task error to print."""

@tool
def act(how: str) -> str:
    """Do what the Case asks."""
    if how == "end":
        raise Ended("ended")
    return "done"

'''
    + PROBE
)


def test_what_the_graphs_loop_would_print_is_counted_where_the_user_looks(tmp_path: Path) -> None:
    """An orphaned task's error (asyncio's "Task exception was never retrieved", with its
    traceback) is kept off stderr and counted: in the Trial's ``dropped``, the Scorecard's, the
    errored Trial's line and a ``Kept off stderr`` line of the text Scorecard (issue 45)."""
    _act_project(tmp_path, "noisy", NOISY, ("end", "ok"))
    done = _sweep(tmp_path, "--save", "c.json")
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "never retrieved" not in done.stderr, done.stderr
    card = json.loads((tmp_path / "c.json").read_text())
    trials = {t["caseId"]: t for t in card["trials"]}
    kept = trials["end"]["dropped"]
    assert kept.get("asyncio", 0) >= 1 and "dropped" not in trials["ok"], trials
    assert card["dropped"] == kept
    total = sum(kept.values())
    lines = done.stdout.splitlines()
    assert f"Kept off stderr  {total} third-party log records (asyncio {kept['asyncio']})" in lines
    (errored,) = [line for line in lines if line.startswith("ERR ")]
    assert errored.endswith(f"(kept off stderr: {total} third-party log records (asyncio {total}))")


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            "open('reached', 'w').close()\n    time.sleep(3600)",
            "did not load its agents within 5 s",
        ),
        ("sys.exit(0)", "raised SystemExit"),
    ],
    ids=["hangs", "exits"],
)
def test_a_builder_that_hangs_or_exits_at_load_is_refused_in_one_line(
    tmp_path: Path, body: str, said: str
) -> None:
    """The builder runs at load (the Host lists each graph's Tools): a hang there is bounded by
    the load deadline, a ``sys.exit`` is one line; exit 2 either way. LangGraph's own import is
    done before the deadline starts (the Host names it its framework), so a short deadline
    still reaches the builder: the hanging one says so before it sleeps."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "probe"\nversion = "0"\n\n[tool.eval]\napp = "stuck:AGENTS"\n'
        'pythonpath = ["."]\n'
    )
    (tmp_path / "stuck.py").write_text(
        f"import sys, time\n\ndef probe(model):\n    {body}\n\nAGENTS = {{'probe': probe}}\n"
    )
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    case = {
        "id": "c",
        "tier": "l2",
        "agent": "probe",
        "input": [{"role": "user", "content": "go"}],
        "script": [{"kind": "text", "text": "ok"}],
        "expect": [{"kind": "output_contains", "text": "ok"}],
    }
    (corpus / "c.json").write_text(json.dumps(case))
    done = _sweep(tmp_path, EVAL_HOST_LOAD_SECONDS="5")  # the builder's time, not LangGraph's
    assert done.returncode == 2, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if not line.startswith("UNLOCKED")]
    assert len(lines) == 1 and said in lines[0], lines
    assert (tmp_path / "reached").exists() == ("reached" in body), "the builder ran"


def test_an_l3_case_is_refused_by_the_real_eval_naming_file_path_and_reason(
    tmp_path: Path,
) -> None:
    """The core's one tier check (the Host declares ``tiers``): exit 2, no traceback."""
    _act_project(tmp_path, "probe_graph", APP, ("ok",))
    case = tmp_path / "corpus" / "ok.json"
    case.write_text(json.dumps({**json.loads(case.read_text()), "tier": "l3"}))
    done = _sweep(tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    said = [line.strip() for line in done.stderr.splitlines() if "$.tier" in line]
    assert said == [
        f"{Path('corpus', 'ok.json')}: $.tier: Host 'langgraph' offers l2 only; this Case is l3"
    ], done.stderr
