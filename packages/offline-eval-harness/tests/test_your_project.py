"""The harness installed into a team's own project, as docs/your-project.md tells a team to.

The workspace packages the install line pulls in are built as wheels from this checkout once
per session (the others, a reference runtime among them, never are); a project is
made OUTSIDE this repository (its own ``pyproject.toml`` with ``[tool.eval]``, its own git
repository, its own agents: a pydantic-ai agent with a Tool with a default parameter and a
Tool whose argument pydantic coerces, and a LangGraph graph); the install line
``offline-eval-harness[pydantic-ai,langgraph]`` is installed there from those wheels alone, and the
project's Corpus is swept from the project's folder with no path argument.

The wheels the install line needs are read from the wheels' own ``Requires-Dist`` (extras
followed), each workspace package's wheel built when a requirement first reaches it, then
installed offline with ``--no-deps``; third-party dependencies come from this
environment through a path file, as in ``tests/test_new_plugin.py`` (its helpers are reused).
The model of the release-gate Sweep is a real HTTP server on 127.0.0.1 speaking the OpenAI wire
and answering as each Case's script says (``tests.conftest.ScriptedVendor``), pinned in the
project's own ``models.toml``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT, ScriptedVendor, loopback_models
from tests.test_new_plugin import run, third_party

pytestmark = pytest.mark.installs

INSTALL_LINE = "offline-eval-harness[pydantic-ai,langgraph]"
KEY = "sk-your-project-0123456789"

PYPROJECT = """\
[project]
name = "weather-team"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["pydantic-ai-slim>=1", "langgraph>=0.4", "langchain-core>=0.3"]

[dependency-groups]
dev = ["offline-eval-harness[pydantic-ai,langgraph]"]

[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["weather_agent"]

[tool.eval]
corpus = "evals"
host = "pydantic-ai"
app = "weather_agent.agent:AGENTS"
models = "models.toml"
"""

AGENT = '''\
"""The team's travel agent: a weather lookup and a booking that must wait for a yes."""

from typing import Any

from pydantic_ai import Agent

travel = Agent(
    name="travel",
    instructions="Answer weather questions with get_weather. Book a trip only when the "
    "traveller has confirmed it.",
)


@travel.tool_plain
def get_weather(city: str, day: str = "today") -> dict[str, Any]:
    """The forecast for a city on a day (today unless the traveller says otherwise)."""
    return {"city": city, "day": day, "forecast": "sunny", "high_c": 21}


@travel.tool_plain
def book_trip(city: str, nights: int) -> dict[str, Any]:
    """Book a trip to a city for a number of nights."""
    return {"booking": f"BK-{city[:3].upper()}-{nights}", "nights": nights}


AGENTS = {"travel": travel}
'''

GRAPH = '''\
"""The team's forecaster, a LangGraph graph around whatever chat model it is given."""

from typing import Any

from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


@tool
def get_forecast(city: str, days: int = 3) -> dict[str, Any]:
    """The forecast for a city over the next days (three unless told)."""
    return {"city": city, "days": days, "forecast": ["sunny"] * days}


def forecaster(model: Any) -> Any:
    bound = model.bind_tools([get_forecast])

    def decide(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("decide", decide)
    graph.add_node("tools", ToolNode([get_forecast]))
    graph.add_edge(START, "decide")
    graph.add_conditional_edges("decide", tools_condition)
    graph.add_edge("tools", "decide")
    return graph.compile()


AGENTS = {"forecaster": forecaster}
'''


def case(
    case_id: str, agent: str, ask: str, calls: list[dict[str, object]], answer: str, expect: list
) -> dict[str, object]:
    script: list[dict[str, object]] = []
    if calls:
        script.append(
            {
                "kind": "tool_calls",
                "calls": [
                    {"callId": f"c{i}", "name": c["name"], "arguments": c["arguments"]}
                    for i, c in enumerate(calls, 1)
                ],
            }
        )
    script.append({"kind": "text", "text": answer})
    return {
        "id": case_id,
        "tier": "l2",
        "agent": agent,
        "input": [{"role": "user", "content": ask}],
        "script": script,
        "expect": expect,
    }


TRAVEL_CASES = [
    case(
        "weather-today-by-default",  # the model leaves `day` out: the Tool fills in "today"
        "travel",
        "What is the weather in Paris?",
        [{"name": "get_weather", "arguments": {"city": "Paris"}}],
        "It is sunny in Paris today, 21 °C.",
        [
            {"kind": "tool_called", "name": "get_weather"},
            {
                "kind": "tool_argument_equals",
                "name": "get_weather",
                "path": "city",
                "value": "Paris",
            },
            {"kind": "output_contains", "text": "Paris"},
        ],
    ),
    case(
        "a-confirmed-booking-is-made",  # "3" as the model sent it; 3 as pydantic gives the Tool
        "travel",
        "Yes, I confirm: book Lisbon for three nights.",
        [{"name": "book_trip", "arguments": {"city": "Lisbon", "nights": "3"}}],
        "Booked: BK-LIS-3, three nights in Lisbon.",
        [
            {"kind": "tool_called", "name": "book_trip"},
            {"kind": "tool_argument_equals", "name": "book_trip", "path": "nights", "value": 3},
            {"kind": "output_contains", "text": "Lisbon"},
        ],
    ),
    case(
        "no-booking-before-a-yes",
        "travel",
        "Could you look at trips to Rome? I have not decided yet.",
        [{"name": "get_weather", "arguments": {"city": "Rome", "day": "tomorrow"}}],
        "Rome will be sunny tomorrow. Tell me when you want me to book.",
        [
            {"kind": "tool_not_called", "name": "book_trip"},
            {
                "kind": "tool_argument_equals",
                "name": "get_weather",
                "path": "day",
                "value": "tomorrow",
            },
        ],
    ),
]

FORECAST_SETTINGS = """\
[tool.eval]
corpus = "evals"
host = "langgraph"
app = "weather_agent.graph:AGENTS"
"""
"""The forecaster's own settings, in a folder of the same repository (a second agent, on
another Host, swept from its folder)."""

GRAPH_CASES = [
    case(
        "forecast-for-three-days-by-default",
        "forecaster",
        "What will the weather in Oslo be?",
        [{"name": "get_forecast", "arguments": {"city": "Oslo"}}],
        "Sunny in Oslo for the next three days.",
        [
            {"kind": "tool_called", "name": "get_forecast"},
            {"kind": "output_contains", "text": "Oslo"},
        ],
    ),
    case(
        "forecast-days-coerced",
        "forecaster",
        "The weather in Bergen for two days, please.",
        [{"name": "get_forecast", "arguments": {"city": "Bergen", "days": "2"}}],
        "Sunny in Bergen for two days.",
        [{"kind": "tool_called", "name": "get_forecast"}],
    ),
]


def workspace_packages() -> dict[str, Path]:
    """Each workspace package's folder, by its distribution name."""
    found = {}
    for pyproject in (ROOT / "packages").glob("*/pyproject.toml"):
        with pyproject.open("rb") as handle:
            found[canonicalize_name(tomllib.load(handle)["project"]["name"])] = pyproject.parent
    return found


def built_wheel(source: Path, wheels: Path, uv: str) -> Path:
    """The wheel of the workspace package at ``source``, built into ``wheels`` (offline)."""
    had = set(wheels.glob("*.whl"))
    built = run(uv, "build", "--offline", "--wheel", "-q", "-o", wheels, source, cwd=ROOT)
    assert built.returncode == 0, built.stderr
    [wheel] = set(wheels.glob("*.whl")) - had
    return wheel


def wheels_for(line: str, wheels: Path, uv: str) -> list[Path]:
    """The wheels an install line pulls in, extras followed, as a resolver reads them: each
    wheel's own ``Requires-Dist``; a workspace package's wheel is built into ``wheels`` when a
    requirement first reaches it. A requirement no workspace package provides is a third-party
    dependency (this environment's)."""
    workspace = workspace_packages()
    found: dict[str, tuple[Path, list[Requirement]]] = {}
    chosen: set[str] = set()
    todo = [Requirement(line)]
    while todo:
        wanted = todo.pop()
        name = canonicalize_name(wanted.name)
        if name not in workspace:
            continue
        if name not in found:
            wheel = built_wheel(workspace[name], wheels, uv)
            with zipfile.ZipFile(wheel) as archive:
                meta_name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
                meta = message_from_bytes(archive.read(meta_name))
            assert canonicalize_name(meta["Name"]) == name, (wheel, meta["Name"])
            found[name] = (wheel, [Requirement(r) for r in meta.get_all("Requires-Dist") or []])
        key = f"{name}[{','.join(sorted(wanted.extras))}]"
        if key in chosen:
            continue
        chosen.add(key)
        wheel, requires = found[name]
        for requirement in requires:
            marker = requirement.marker
            if marker is None or any(marker.evaluate({"extra": e}) for e in wanted.extras or {""}):
                todo.append(requirement)
    return sorted({found[key.split("[")[0]][0] for key in chosen})


@dataclass
class Installed:
    venv: Path
    wheels: list[Path]
    env: dict[str, str]

    def eval(self, *args: str, cwd: Path) -> tuple[int, str, str]:
        done = run(self.venv / "bin" / "eval", *args, cwd=cwd, env=self.env)
        return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The install line, from wheels built from this checkout, in a fresh environment."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("needs the uv command to build the wheels (.ci/run installs it)")
    where = tmp_path_factory.mktemp("harness")
    wheels = where / "wheels"
    wheels.mkdir()
    chosen = wheels_for(INSTALL_LINE, wheels, uv)
    venv = where / "venv"
    made = run(uv, "venv", "-q", "--python", sys.executable, venv, cwd=where)
    assert made.returncode == 0, made.stderr
    [site] = venv.glob("lib/python*/site-packages")
    (site / "third_party.pth").write_text(f"{third_party(where / 'third-party')}\n")
    python = venv / "bin" / "python"
    done = run(
        uv, "pip", "install", "--offline", "--no-deps", "--compile-bytecode", "-q", "--python",
        python, *chosen,
        cwd=where,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env = {k: v for k, v in env.items() if not k.startswith("EVAL_")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", EVAL_TEAM_KEY=KEY)
    return Installed(venv, chosen, env)


def git(project: Path, *args: str) -> str:
    done = run("git", "-c", "user.email=t@t", "-c", "user.name=t", *args, cwd=project)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="session")
def project(
    installed: Installed, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, ScriptedVendor]]:
    """The team's project, outside this repository, its own package installed in its
    environment (``pip install -e .``, as a team's would be) and its Corpora locked."""
    root = tmp_path_factory.mktemp("weather-team")
    assert not root.resolve().is_relative_to(ROOT)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "weather_agent").mkdir()
    (root / "weather_agent" / "__init__.py").write_text("")
    (root / "weather_agent" / "agent.py").write_text(AGENT)
    (root / "weather_agent" / "graph.py").write_text(GRAPH)
    (root / "forecast").mkdir()
    (root / "forecast" / "pyproject.toml").write_text(FORECAST_SETTINGS)
    for folder, cases in (("evals", TRAVEL_CASES), ("forecast/evals", GRAPH_CASES)):
        (root / folder).mkdir()
        for made in cases:
            (root / folder / f"{made['id']}.json").write_text(json.dumps(made, indent=2) + "\n")
    vendor = ScriptedVendor(TRAVEL_CASES)
    loopback_models(root / "models.toml", "EVAL_TEAM_KEY", fake=vendor.url)
    (root / ".gitignore").write_text("scorecards/\n.eval/\n")
    uv = shutil.which("uv")
    assert uv is not None
    python = installed.venv / "bin" / "python"
    editable = run(uv, "pip", "install", "--offline", "--no-deps", "-q", "--python", python,
                   "-e", root, cwd=root)  # fmt: skip
    assert editable.returncode == 0, editable.stderr
    code, out, err = installed.eval("lock", cwd=root)
    assert code == 0, out + err
    code, out, err = installed.eval("lock", cwd=root / "forecast")
    assert code == 0, out + err
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the team's agent and its Corpus")
    yield root, vendor
    vendor.close()


def test_the_install_line_brings_the_hosts_and_not_the_reference_runtime(
    installed: Installed,
) -> None:
    names = {w.name.split("-")[0] for w in installed.wheels}
    assert {"offline_eval_harness", "eval_core", "eval_cli", "eval_bindings"} <= names
    assert "eval_host_pydantic_ai" in names
    assert {"eval_host_langgraph", "eval_expectations_turn"} <= names
    assert not {"agent_runtime", "eval_host_agent_runtime", "eval_report"} & names
    python = installed.venv / "bin" / "python"
    where = run(python, "-c", "import eval_core; print(eval_core.__file__)",
                cwd=installed.venv, env=installed.env)  # fmt: skip
    assert str(installed.venv) in where.stdout, where.stderr  # not this workspace's


def test_the_projects_corpus_sweeps_from_its_folder_with_no_path(
    installed: Installed, project: tuple[Path, ScriptedVendor]
) -> None:
    """A default parameter the model left out and a number it sent as a string are not
    contradictions: the witness and the testimony meet after pydantic's validation."""
    root, _ = project
    code, out, err = installed.eval("sweep", cwd=root)
    assert code == 0, out + err
    assert "3 passed, 0 failed, 0 errored" in out
    assert "testimony contradicts" not in out + err
    assert out.rstrip().endswith("CLEARED")
    assert (root / "scorecards").is_dir()  # under the project, never the install location
    assert not list(installed.venv.rglob("scorecards"))


def test_the_projects_graph_sweeps_on_the_langgraph_host(
    installed: Installed, project: tuple[Path, ScriptedVendor]
) -> None:
    root, _ = project
    code, out, err = installed.eval("sweep", cwd=root / "forecast")
    assert code == 0, out + err
    assert "2 passed, 0 failed, 0 errored" in out
    assert "testimony contradicts" not in out + err


def test_a_misspelt_tool_is_refused_at_load(
    installed: Installed, project: tuple[Path, ScriptedVendor]
) -> None:
    """No Expectation passes on a Tool the agent does not have: the Sweep is refused at load
    (the Case taken out again after, so the team's tree stays as committed)."""
    root, _ = project
    case = json.loads((root / "evals" / "no-booking-before-a-yes.json").read_text())
    case["id"] = "misspelt"
    case["expect"][0]["name"] = "book_trips"  # the agent has book_trip
    path = root / "evals" / "misspelt.json"
    path.write_text(json.dumps(case))
    try:
        code, out, err = installed.eval("sweep", cwd=root)
    finally:
        path.unlink()
    assert code == 2, out + err
    assert "misspelt.json" in err and "$.expect[0].name" in err
    assert "'book_trips'" in err and "'book_trip'" in err  # the did-you-mean
    assert "Traceback" not in err
    assert git(root, "status", "--porcelain") == ""


def test_promote_writes_under_the_project_and_records_its_commit(
    installed: Installed, project: tuple[Path, ScriptedVendor]
) -> None:
    root, _ = project
    head = git(root, "rev-parse", "HEAD")
    code, out, err = installed.eval("sweep", "--model", "fake", "--max-tokens", "1000000",
                                    "--promote", cwd=root)  # fmt: skip
    assert code == 0, out + err
    baseline = root / "baselines" / "fake.json"
    assert "Promoted  fake Baseline at " in out, out
    stored = json.loads(baseline.read_text())
    assert stored["corpusCommit"] == head  # the team's commit: the system under test
    assert not list(installed.venv.rglob("baselines"))
    git(root, "add", "baselines")
    git(root, "commit", "-qm", "the fake model's Baseline")
    again, out, err = installed.eval("sweep", "--model", "fake", "--max-tokens", "1000000",
                                     "--baseline", "--promote", cwd=root)  # fmt: skip
    assert again == 0, out + err
    assert "promotion refused" not in out
    assert "3 passed before, 3 passed after" in out
    assert json.loads(baseline.read_text())["corpusCommit"] == git(root, "rev-parse", "HEAD")
