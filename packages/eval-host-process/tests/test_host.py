"""The process Host behind the port: conformance, the token, refusals at load and at run."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from eval_core.hosts import (
    CorpusError,
    HostOptionError,
    Loader,
    PluginSet,
    SettingsRefused,
    find_project,
)
from eval_host_process.host import OPTIONS, ProcessHost
from eval_kit import HostProbe, assert_host_conforms
from process_project import AGENT, Sweep, order_case, write_project
from test_robustness import _marked

CONFORMANCE = """
[agents.assistant]
command = "{python} {agent} chat"
tools = ["lookup_order"]

[agents.broken]
command = "{python} {agent} chat crash"
tools = ["lookup_order"]

[tools.lookup_order]
description = "Look an order up by its id."
parameters = {{ type = "object", properties = {{ order_id = {{ type = "string" }} }} }}
"""


def test_the_process_host_conforms(tmp_path: Path) -> None:
    manifest = tmp_path / "agents.toml"
    manifest.write_text(CONFORMANCE.format(python=sys.executable, agent=AGENT))
    assert_host_conforms(
        HostProbe(
            factory=partial(ProcessHost, agents=str(manifest)),
            agent="assistant",
            tool="lookup_order",
            platform=True,
            arguments={"order_id": "A-7"},
            raising_agent="broken",
        ),
        tmp_path / "probe",
    )


def test_a_request_the_harness_cannot_relay_errors_the_trial(sweep: Sweep) -> None:
    card, _ = sweep([order_case("two-choices", "refused")])
    (trial,) = card.trials
    assert trial.outcome == "errored"
    assert (trial.error or "").startswith(
        "AgentError: the agent asked the harness for what it does not relay: chat completions: "
        "n=2: one choice only"
    ), trial.error


def test_a_failure_of_the_binding_errors_the_trial_with_its_reason(sweep: Sweep) -> None:
    short = order_case("script-too-short", "chat")
    short["script"] = short["script"][:1]  # the agent calls its model once more than scripted
    card, _ = sweep([short])
    (trial,) = card.trials
    assert trial.outcome == "errored"
    assert (trial.error or "").startswith(
        "ScriptExhaustedError: script exhausted: the model was called 2 times but "
        "script-too-short scripts 1 step(s)"
    ), trial.error


def test_an_expectation_needing_the_tool_witness_of_an_internal_tool_is_refused(
    plugins: PluginSet, tmp_path: Path
) -> None:
    corpus = write_project(tmp_path / "team")
    case = order_case("internal", "chat")
    case["expect"] = [{"kind": "tool_not_called", "name": "format_date"}]
    case["toolResults"].append({"name": "format_date", "output": "1 Dec"})
    (corpus / "internal.json").write_text(json.dumps(case))
    host = ProcessHost(corpus)
    with pytest.raises(CorpusError) as refused:
        Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
    problems = {p.path: p.reason for p in refused.value.problems}
    assert problems == {
        "$.expect[0].name": "tool_not_called needs the tool witness, but 'format_date' is "
        "internal to agent 'chat' (internal_tools): its calls never cross a boundary the "
        "harness serves, so nothing can witness them",
        "$.toolResults[1].name": "'format_date' is internal to agent 'chat': a scripted "
        "result never reaches it",
    }


@pytest.mark.parametrize(
    ("manifest", "said"),
    [
        (None, "the agents manifest {root}/agents.toml cannot be read"),
        ("[agents]\n", "{root}/agents.toml: agents: no [agents.<name>] table"),
        (
            '[agents.a]\ncommand = "true"\ntools = ["nope"]\n',
            "{root}/agents.toml: agents.a.tools: 'nope' has no declaration (no tools_server, "
            "and there is no [tools.nope] table)",
        ),
        ("[agents.a]\ntools = []\n", "agent 'a' of {root}/agents.toml has no command"),
        ('[agents.a]\ncommand = "true"\nmodel = "x"\n', "agents.a.model: not a key of an agent"),
    ],
)
def test_a_manifest_it_cannot_use_is_one_line(
    tmp_path: Path, manifest: str | None, said: str
) -> None:
    if manifest is not None:
        (tmp_path / "agents.toml").write_text(manifest)
    with pytest.raises(HostOptionError) as refused:
        ProcessHost(tmp_path)
    assert said.format(root=tmp_path) in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_loop_s_reason_passes_through_and_its_limits_are_the_harness_s_names(
    sweep: Sweep,
) -> None:
    """``iteration_limit`` is the harness's own name (what ``loop_status`` compares on every
    Host); a reason in the loop's own words reaches the Evidence unchanged."""
    looping = order_case(
        "stopped-at-its-limit",
        "chat",
        script=[
            {
                "kind": "tool_calls",
                "calls": [{"callId": f"c{i}", "name": "lookup_order", "arguments": {}}],
            }
            for i in range(8)
        ],
        expect=[{"kind": "loop_status", "status": "failed", "reason": "iteration_limit"}],
    )
    giving_up = order_case(
        "gives-up-in-its-words",
        "give-up",
        expect=[{"kind": "loop_status", "status": "failed", "reason": "MaxTurnsExceeded: 8"}],
    )
    card, seen = sweep([looping, giving_up])
    assert [t.outcome for t in card.trials] == ["passed", "passed"], card.trials
    assert seen["stopped-at-its-limit"].loop_reason == "iteration_limit"
    assert len(seen["stopped-at-its-limit"].tool_calls) == 8
    assert seen["gives-up-in-its-words"].loop_reason == "MaxTurnsExceeded: 8"


def test_a_host_option_in_the_settings_is_read_by_the_core_s_rule(tmp_path: Path) -> None:
    """The Host reads ``[tool.eval]`` through the core's reader of Host options, so an array
    (which ``eval`` refuses before the Host starts) is refused the same way, in one line."""
    (tmp_path / "agents.toml").write_text('[agents.a]\ncommand = "true"\n')
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.eval]\nhost = "process"\npass_env = ["A_NAME", "B_NAME"]\n')
    with pytest.raises(SettingsRefused) as core:
        find_project(tmp_path).host_options("process", OPTIONS)
    with pytest.raises(HostOptionError) as host:
        ProcessHost(tmp_path)
    said = "tool.eval.pass_env: expected a string or a number (a Host option), got an array"
    said = f"{pyproject}: {said}"
    assert str(host.value) == str(core.value) == said
    pyproject.write_text(
        '[tool.eval]\nhost = "process"\npass_env = "A_NAME, B_NAME"\ntimeout = 5\n'
    )
    accepted = ProcessHost(tmp_path)
    assert (accepted.pass_env, accepted.timeout) == (("A_NAME", "B_NAME"), 5.0)


def _post(url: str, token: str | None, body: dict[str, Any] | bytes) -> int:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data, headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_every_endpoint_wants_the_trials_token(plugins: PluginSet, tmp_path: Path) -> None:
    from eval_core._running.scripted import ScriptedSession
    from eval_core.hosts import ScriptedTools
    from eval_host_process.server import TrialServer
    from eval_host_process.tools import ToolDesk

    corpus = write_project(tmp_path / "team")
    (corpus / "c.json").write_text(json.dumps(order_case("c", "chat")))
    host = ProcessHost(corpus)
    (case,) = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus).cases
    desk = ToolDesk([], ScriptedTools([]), frozenset(), frozenset())
    server = TrialServer(ScriptedSession(case), desk, None, "the-token", "scripted")
    server.start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        chat = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}
        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
        for path, body in (
            ("/v1/chat/completions", chat),
            ("/v1/responses", chat),
            ("/v1/messages", chat),
            ("/mcp", initialize),
        ):
            assert _post(base + path, None, body) == 401, path
            assert _post(base + path, "not-the-token", body) == 401, path
        assert _post(base + "/mcp", "the-token", initialize) == 200
        assert server.requests == 0  # no model request got past the token
        assert server.problem is None
        assert _post(base + "/v1/chat/completions", "the-token", b"{not json") == 400
        assert server.problem == "/v1/chat/completions: the request body is not JSON"
    finally:
        server.close()


def _eval_sweep(corpus: Path, *flags: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """The real ``eval sweep`` of the team's Corpus, run in its project as the team runs it."""
    return subprocess.run(
        [sys.executable, "-m", "eval_cli", "sweep", corpus.name, *flags],
        cwd=corpus.parent,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_eval_sweep_runs_the_process_host_on_forked_workers(tmp_path: Path, run_mark: str) -> None:
    """The command a team runs: ``eval sweep --jobs 2`` (a framework Host's Trials on forked
    children, sharing the zygote started before them), green, its Scorecard naming the Host,
    and nothing of the agents' left running once it exited (the zygote ended with it)."""
    corpus = write_project(tmp_path / "team")
    for wire in ("chat", "messages-stream"):
        (corpus / f"on-{wire}.json").write_text(json.dumps(order_case(f"on-{wire}", wire)))
    ran = _eval_sweep(corpus, "--jobs", "2", "--unlocked", timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 passed, 0 failed, 0 errored" in ran.stdout
    assert "2 Trials at a time" in ran.stderr
    assert _marked(run_mark) == []


def test_an_l3_case_is_refused_by_the_real_eval_naming_file_path_and_reason(
    tmp_path: Path,
) -> None:
    """The core's one tier check (the Host declares ``tiers``): exit 2, no traceback, and no
    agent started."""
    corpus = write_project(tmp_path / "team")
    (corpus / "durable.json").write_text(json.dumps(order_case("durable", "chat", tier="l3")))
    ran = _eval_sweep(corpus, "--unlocked", "-q", timeout=120)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr
    said = [line.strip() for line in ran.stderr.splitlines() if "$.tier" in line]
    assert said == [
        f"{Path('corpus', 'durable.json')}: $.tier: Host 'process' offers l2 only; this Case is l3"
    ], ran.stderr


def test_the_agent_is_given_the_protocol_and_none_of_the_harness_s_keys(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch, run_mark: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-harness-own-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-the-harness-own-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    case = order_case("what-it-is-given", "env", script=[{"kind": "text", "text": "x"}])
    case["input"] = [
        {"role": "user", "content": "Where is order A-1?"},
        {"role": "assistant", "content": "Which order?"},
        {"role": "user", "content": "A-1, please."},
    ]
    case["expect"] = [{"kind": "loop_status", "status": "completed"}]
    card, seen = sweep([case])
    assert [t.outcome for t in card.trials] == ["passed"], card.trials
    given = json.loads(seen["what-it-is-given"].output_text)
    env = given["env"]
    assert "sk-the-harness-own-key" not in json.dumps(given) and "aws-secret" not in str(env)
    token = env["OPENAI_API_KEY"]
    assert env["ANTHROPIC_API_KEY"] == token and len(token) >= 24
    assert env["EVAL_MCP_TOKEN"] == token  # its own name: the Tool server needs no model key
    port = env["OPENAI_BASE_URL"].removeprefix("http://127.0.0.1:").removesuffix("/v1")
    assert env["OPENAI_BASE_URL"] == f"http://127.0.0.1:{port}/v1" and port.isdigit()
    assert env["ANTHROPIC_BASE_URL"] == f"http://127.0.0.1:{port}"
    assert env["EVAL_MCP_URL"] == f"http://127.0.0.1:{port}/mcp"
    assert (env["EVAL_PROTOCOL"], env["EVAL_MODEL"]) == ("eval-process/1", "scripted")
    assert env["TMPDIR"].startswith(tempfile.gettempdir()) and not Path(env["TMPDIR"]).exists()
    assert env["EVAL_PROCESS_TEST_RUN"] == run_mark  # named by pass_env
    allowed = {
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TMPDIR",
        "EVAL_TRIAL_MARK",
        "EVAL_PROCESS_TEST_RUN",
    }
    allowed |= {"EVAL_PROTOCOL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL"}
    allowed |= {"ANTHROPIC_API_KEY", "EVAL_MODEL", "EVAL_MCP_URL", "EVAL_MCP_TOKEN"}
    # what the interpreter sets for itself at start is not from the harness
    assert set(env) - allowed - {"LC_CTYPE", "PWD", "SHLVL", "_"} == set()
    assert given["cwd"] == str(Path(given["cwd"]).parent / "team")  # the project's root
    assert given["stdin"] == {
        "protocol": "eval-process/1",
        "case": "what-it-is-given",
        "agent": "env",
        "messages": case["input"],
        "input": "A-1, please.",
    }
