"""The Host's load-time answers and refusals, its options, and the kit's conformance check.

A Case asking for what a LangGraph agent does not have is refused at load, naming the Host and
what is missing; an app that cannot be used is one line, never a traceback."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from eval_core._plugins.plugin_set import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from eval_core.hosts import HostOptionError, ModelError, Usage
from eval_host_langgraph.host import LangGraphHost
from eval_kit import HostProbe, assert_host_conforms

pytestmark = pytest.mark.usefixtures("probe_path")

BASE: dict[str, Any] = {
    "tier": "l2",
    "agent": "triage",
    "input": [{"role": "user", "content": "Triage T-101."}],
    "platformTools": ["lookup_ticket"],
    "script": [{"kind": "text", "text": "Done."}],
    "expect": [{"kind": "loop_status", "status": "completed"}],
}


def refusals(plugins: PluginSet, host: LangGraphHost, tmp_path: Path, **case: Any) -> list[str]:
    """The loader's refusals of one Case in a Corpus with no Eval Soul; each names the file."""
    corpus = tmp_path / "corpus"
    corpus.mkdir(parents=True)
    document = {**BASE, "id": "probe", **case}
    (corpus / "probe.json").write_text(json.dumps(document))
    try:
        Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
    except CorpusError as refused:
        assert all(p.file == str(corpus / "probe.json") for p in refused.problems)
        return [f"{p.path}: {p.reason}" for p in refused.problems]
    return []


def test_the_load_cache_is_keyed_by_this_host_the_framework_and_the_teams_code(
    host: LangGraphHost,
) -> None:
    """A fingerprint that fails turns the checked-Corpus cache off without a word (a cache may
    never change a verdict): so its parts are asserted here, each one."""
    import langgraph_triage

    import eval_host_langgraph
    from eval_core.hosts import fingerprint

    ours = fingerprint("eval-host-langgraph", eval_host_langgraph).digest
    team = fingerprint("langgraph_triage", langgraph_triage).digest  # the app's top package
    key = host.fingerprint()
    assert key.startswith(f"{ours} langgraph ") and " langchain-core " in key
    assert key.endswith(f" {host.app.spec} {team}")


def test_the_agents_own_tools_are_the_platform_tools(host: LangGraphHost) -> None:
    tools = host.platform_tools()
    assert sorted(tools) == [
        "escalate_ticket",
        "lookup_ticket",
        "route_ticket",
        "schedule_callback",
    ]
    assert tools["route_ticket"].input_schema["required"] == ["ticket_id", "queue"]
    assert tools["schedule_callback"].input_schema["required"] == ["ticket_id", "within_hours"]
    # the graph's state is LangGraph's to inject: never a parameter the model is offered
    escalate = tools["escalate_ticket"].input_schema
    assert escalate["required"] == ["ticket_id", "reason", "hours_affected"]
    assert "state" not in escalate["properties"]
    assert host.agents() == frozenset({"triage"})


def test_the_prompt_the_graph_assembles_is_the_given_text(host: LangGraphHost) -> None:
    import msgspec

    from eval_core._case.case import CaseBase

    case = msgspec.convert({**BASE, "id": "given", "expect": []}, CaseBase, from_attributes=False)
    given = host.given_text(case)
    assert given[0].startswith("You are the support triage agent of the Acme help desk.")
    assert "Look a support ticket up by its id (T-nnn): its subject, customer and plan." in given


def test_a_case_of_an_agent_the_app_lacks_is_given_no_text(host: LangGraphHost) -> None:
    """The loader refuses such a Case for its agent before it asks (so no Case reaches this);
    asked anyway, as the Host port allows any caller to, the Host answers no text and probes
    no graph."""
    import msgspec

    from eval_core._case.case import CaseBase

    stray = {**BASE, "id": "stray", "agent": "nobody", "expect": []}
    case = msgspec.convert(stray, CaseBase, from_attributes=False)
    assert host.given_text(case) == ()


def test_a_ctrl_c_while_the_graph_is_probed_for_its_prompt_ends_the_command(
    tmp_path: Path,
) -> None:
    """The Host runs the team's graph at load to read the prompt it assembles; a graph that
    fails there gives no prompt, but a Ctrl-C landing while it runs is the user's, and ends the
    command rather than being read as a graph that gave none. Built in the probe's own task
    (a LangGraph node runs in a task of its own, whose interrupt asyncio raises out of the
    loop past the probe), as a graph object whose ``ainvoke`` is interrupted."""
    import msgspec

    from eval_core._case.case import CaseBase

    host = LangGraphHost(tmp_path, app="probe_agents:INTERRUPTED")
    case = msgspec.convert(
        {**BASE, "id": "stopped", "agent": "assistant", "platformTools": [], "expect": []},
        CaseBase,
        from_attributes=False,
    )
    try:
        with pytest.raises(KeyboardInterrupt):
            host.given_text(case)
    finally:
        host.close()


def test_a_graph_that_fails_before_its_model_is_probed_to_no_prompt(tmp_path: Path) -> None:
    """The Host runs the team's graph at load to read the prompt it assembles; a graph that
    raises there (its own bug, met again by the Trial) gives no prompt: the Host answers no
    text, and neither raises nor reads the failure as the user's Ctrl-C."""
    import msgspec

    from eval_core._case.case import CaseBase

    host = LangGraphHost(tmp_path, app="probe_agents:STUMBLING")
    case = msgspec.convert(
        {**BASE, "id": "stumbles", "agent": "assistant", "platformTools": [], "expect": []},
        CaseBase,
        from_attributes=False,
    )
    try:
        assert host.given_text(case) == ()
    finally:
        host.close()


PROBED_AT_LOAD = """
import json, signal, sys
from pathlib import Path
signal.signal(signal.SIGINT, signal.default_int_handler)  # a terminal's Ctrl-C, whatever the
# parent (a test worker that ignores SIGINT) handed down
import msgspec
from eval_core._case.case import CaseBase
from eval_host_langgraph.host import LangGraphHost
host = LangGraphHost(Path(sys.argv[1]), app="probe_agents:DOZING")
case = msgspec.convert(json.loads(sys.argv[2]), CaseBase, from_attributes=False)
print("probing", flush=True)
try:
    host.given_text(case)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("carried on", flush=True)
"""


def test_a_real_ctrl_c_while_a_graph_node_runs_at_load_ends_the_command(tmp_path: Path) -> None:
    """A real SIGINT while the probe's graph sleeps in a node: asyncio cancels the probe's
    task, and the probe must not read that cancellation as a graph that gave no prompt (it
    did: loading carried on past the user's Ctrl-C). In a process of its own: how SIGINT is
    handled is the process's, which other tests may have set."""
    import os
    import signal
    import subprocess
    import sys
    import time

    case = {**BASE, "id": "stopped", "agent": "assistant", "platformTools": [], "expect": []}
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    child = subprocess.Popen(
        [sys.executable, "-c", PROBED_AT_LOAD, str(tmp_path), json.dumps(case)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "probing\n"
        time.sleep(1.0)  # the node is asleep now
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)  # ended by the Ctrl-C, not the node's 30 s
    finally:
        child.kill()
    assert (child.returncode, out) == (130, "interrupted\n"), err


@pytest.mark.parametrize(
    ("case", "refused"),
    [
        ({"tier": "l3"}, "$.tier: Host 'langgraph' offers l2 only; this Case is l3"),
        (
            {"checkpointCrash": "after_first_tool_result"},
            "needs the Host service CheckpointFaults, which Host 'langgraph' does not offer at l2",
        ),
        (
            {"tools": [{"name": "page_oncall", "inputSchema": {"type": "object"}}]},
            "$.tools[0]: Host 'langgraph' runs the agent's own Tools: a Case cannot add "
            "'page_oncall'",
        ),
        (
            {"toolResults": [{"name": "lookup_ticket", "approvalId": "a1"}]},
            "$.toolResults[0].approvalId: Host 'langgraph' parks no Tool call",
        ),
        (
            {
                "mcp": {
                    "visibility": "shared",
                    "accounts": [{"id": "s", "scope": "shared", "status": "active"}],
                    "sharedGrants": ["s"],
                }
            },
            "$.mcp.sharedGrants: Host 'langgraph' has no account authority",
        ),
        (
            {
                "mcp": {
                    "visibility": "private",
                    "accounts": [
                        {"id": "a", "scope": "personal", "status": "active", "isDefault": True},
                        {"id": "b", "scope": "personal", "status": "active"},
                    ],
                    "reselect": {"accountId": "b", "sharedConsent": False},
                }
            },
            "$.mcp.reselect: Host 'langgraph' has no approvals to select another account during",
        ),
        ({"platformTools": ["page_oncall"]}, "'page_oncall' does not resolve"),
        (
            {"agent": "triag"},
            "$.agent: unknown agent 'triag': not in langgraph_triage.agents:AGENTS, which has: "
            "triage; did you mean 'triage'?",
        ),
        (
            {"expect": [{"kind": "tool_not_called", "name": "route_tickets"}]},
            "$.expect[0].name: 'route_tickets' is not a Tool of agent 'triage' of "
            "langgraph_triage.agents:AGENTS; it has: escalate_ticket, lookup_ticket, "
            "route_ticket, schedule_callback; did you mean 'route_ticket'?",
        ),
        (
            {
                "script": [
                    {
                        "kind": "tool_calls",
                        "calls": [{"callId": "c1", "name": "lookup_tickets", "arguments": {}}],
                    },
                    {"kind": "text", "text": "Done."},
                ]
            },
            "$.script[0].calls[0].name: 'lookup_tickets' is not a Tool of agent 'triage'",
        ),
        (
            {"toolResults": [{"name": "lookup_tiket", "output": {}}]},
            "$.toolResults[0].name: scripted result for 'lookup_tiket', which the Case does not "
            "declare (tools, platformTools); did you mean 'lookup_ticket'?",
        ),
        (
            {"platformTools": ["lookup_tickets"]},
            "$.platformTools[0]: 'lookup_tickets' does not resolve to a shipped platform Tool; "
            "did you mean 'lookup_ticket'?",
        ),
        ({"context": {"channel": "web"}}, "$.context.channel: unknown context key 'channel'"),
        (
            {
                "input": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "Triage the ticket attached."},
                            {
                                "type": "file",
                                "fileId": "t-101",
                                "mediaType": "text/plain",
                                "name": "t-101.txt",
                            },
                        ],
                    }
                ],
                "attachments": [
                    {
                        "fileId": "t-101",
                        "mediaType": "text/plain",
                        "name": "t-101.txt",
                        "content": "Charged twice for the March invoice.",
                    }
                ],
            },
            "$.input[0].content[1]: Host 'langgraph' has no File store: a Case's input is text "
            "only",
        ),
    ],
)
def test_what_the_host_lacks_is_refused_at_load(
    plugins: PluginSet, host: LangGraphHost, tmp_path: Path, case: dict[str, Any], refused: str
) -> None:
    found = refusals(plugins, host, tmp_path, **case)
    assert any(refused in line for line in found), found
    assert not any("Eval Soul" in line for line in found), found  # the Host's words


def test_of_two_accounts_one_marked_default_loads_and_none_marked_is_refused(
    plugins: PluginSet, host: LangGraphHost, tmp_path: Path
) -> None:
    """The agent's MCP client acts for one account: of several, a Case marks the default (or
    selects one); two with neither is refused at load, not left to the client to pick."""

    def mcp(default: bool) -> dict[str, Any]:
        on_call = {"id": "on-call", "scope": "personal", "status": "active"}
        return {
            "visibility": "private",
            "operatorEndpoints": ["workspace"],
            "accounts": [
                {**on_call, "isDefault": True} if default else on_call,
                {"id": "archive", "scope": "personal", "status": "active"},
            ],
        }

    assert refusals(plugins, host, tmp_path / "marked", mcp=mcp(default=True)) == []
    assert refusals(plugins, host, tmp_path / "unmarked", mcp=mcp(default=False)) == [
        "$.mcp.accounts: Host 'langgraph' acts for one account: select one or mark a default"
    ]


def test_another_agents_tool_is_refused_for_this_agent(
    plugins: PluginSet, tmp_path: Path, probe_path: None
) -> None:
    """Per agent, not the union of the app's agents' Tools."""
    host = LangGraphHost(tmp_path, app="probe_agents:AGENTS")
    try:
        found = refusals(plugins, host, tmp_path, agent="assistant", platformTools=["explode"])
    finally:
        host.close()
    assert found == [  # explode is the raiser's, and so one of the app's platform Tools
        "$.platformTools[0]: 'explode' is not a Tool of agent 'assistant' of probe_agents:AGENTS; "
        "it has: probe_lookup"
    ]


def test_an_mcp_tool_the_graph_loads_at_run_is_a_note_not_a_refusal(
    plugins: PluginSet, host: LangGraphHost, tmp_path: Path
) -> None:
    """The graph's MCP Tools come at run from the Case's mcp servers: the Host cannot list them
    at load, so a name outside the graph's own is said, never silently accepted."""
    from eval_core._case.case import CaseBase

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    document = {
        **BASE,
        "id": "probe",
        "mcp": {
            "visibility": "private",
            "operatorEndpoints": ["workspace"],
            "accounts": [{"id": "a", "scope": "personal", "status": "active", "isDefault": True}],
        },
        "expect": [{"kind": "tool_not_called", "name": "workspace_create_note"}],
    }
    (corpus / "probe.json").write_text(json.dumps(document))
    loaded = Loader(plugins, host, judge="no-judge", needs_soul=False).load(corpus)
    assert loaded.notes == (
        f"{corpus / 'probe.json'}: $.expect[0].name: 'workspace_create_note' is not among the "
        "Tools of agent 'triage' of langgraph_triage.agents:AGENTS listed at load "
        "(escalate_ticket, lookup_ticket, route_ticket, schedule_callback); taken as one of the "
        "Tools the agent's MCP client loads at run from the MCP servers a fixture serves, which "
        "the Host cannot list: not checked",
    )
    case = loaded.cases[0]
    assert isinstance(case, CaseBase)
    offered = host.offered_tools(case)
    assert offered is not None and offered.more is not None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"app": "no_such_team.agents:AGENTS"}, "importing no_such_team.agents raised"),
        ({"app": "probe_agents"}, "expected package.module:AGENTS"),
        ({"app": "probe_agents:EMPTY"}, "expected a non-empty mapping of agent names"),
        (
            {"app": "probe_agents:BROKEN"},
            "the builder of agent 'assistant' raised TypeError: the builder returned dict, "
            "not a compiled graph",
        ),
        ({"app": "probe_agents:AGENTS", "recursion_limit": "0"}, "recursion_limit '0'"),
        ({"app": "probe_agents:AGENTS", "timeout": "soon"}, "timeout must be a number, not 'soon'"),
        ({}, "no agents named"),
    ],
)
def test_an_app_that_cannot_be_used_is_one_line(
    tmp_path: Path, options: dict[str, str], message: str
) -> None:
    with pytest.raises(HostOptionError) as refused:
        LangGraphHost(tmp_path, **options)
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    ("given", "limit"), [("1", 1), ("24", 24), ("10000", 10_000), (" 40 ", 40)]
)
def test_a_recursion_limit_from_1_to_10000_is_taken_as_given(
    tmp_path: Path, given: str, limit: int
) -> None:
    host = LangGraphHost(tmp_path, app="probe_agents:AGENTS", recursion_limit=given)
    assert host.recursion_limit == limit


@pytest.mark.parametrize("given", ["ten", "2.5", "0", "-3", "10001"])
def test_a_recursion_limit_that_is_no_whole_number_from_1_to_10000_is_refused(
    tmp_path: Path, given: str
) -> None:
    with pytest.raises(HostOptionError) as refused:
        LangGraphHost(tmp_path, app="probe_agents:AGENTS", recursion_limit=given)
    assert str(refused.value).endswith(
        f"recursion_limit {given!r}: expected a whole number from 1 to 10000"
    )


def test_the_host_conforms_to_the_host_contract(tmp_path: Path, plugins: PluginSet) -> None:
    probe = HostProbe(
        factory=partial(LangGraphHost, app="probe_agents:AGENTS"),
        tool="probe_lookup",
        platform=True,
        raising_agent="raiser",
        raising_tool="explode",
    )
    assert_host_conforms(probe, tmp_path, plugins)


def test_a_graph_that_outlives_its_bound_errors_the_trial_in_one_line(
    tmp_path: Path, plugins: PluginSet
) -> None:
    host = LangGraphHost(tmp_path, app="probe_agents:AGENTS", timeout="0.5")
    call = {"callId": "w1", "name": "wait_forever", "arguments": {}}
    case = {
        **BASE,
        "agent": "sleeper",
        "platformTools": ["wait_forever"],
        "script": [{"kind": "tool_calls", "calls": [call]}, {"kind": "text", "text": "Done."}],
    }
    corpus = tmp_path / "corpus"
    (corpus / "soul").mkdir(parents=True)
    (corpus / "hung.json").write_text(json.dumps({**case, "id": "hung"}))
    try:
        loaded = Loader(plugins, host, judge="no-judge").load(corpus)
        [trial] = run_sweep(loaded, host, ScriptedBinding(), plugins).trials
    finally:
        host.close()
    assert trial.outcome == "errored"
    assert (trial.error or "").startswith(
        "GraphTimeout: the graph outlived its bound of 0.5 s and was cancelled"
    )
    assert "\n" not in (trial.error or "")


class _Refusing:
    """A vendor session that answers 429 once its retries are spent: the binding's error."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.calls = 0
        self.retries = 2
        self.model_version: str | None = None
        self.sent: list[Any] = []

    def complete(self, request: Any) -> Any:
        self.calls += 1
        raise ModelError("model_rate_limited", "HTTP 429 after 3 attempts")


class _Failing:
    model_id = "vendor"
    scripted = False

    def session(self, case: Any) -> _Refusing:
        return _Refusing()


def test_a_vendor_failure_errors_the_trial_and_is_never_a_verdict(
    corpus: Any, host: LangGraphHost, plugins: PluginSet
) -> None:
    card = run_sweep(
        corpus, host, _Failing(), plugins, select=["tool-choice-billing-ticket-goes-to-billing"]
    )
    [trial] = card.trials
    assert (trial.outcome, trial.error, trial.model_calls) == (
        "errored",
        "model_rate_limited",
        1,
    )


def test_a_pyproject_that_cannot_be_read_is_refused_in_one_line(tmp_path: Path) -> None:
    """The Host reads ``[tool.eval]`` itself when built outside ``eval`` (the Python API, the
    conformance kit): a file that is not TOML is refused as ``eval`` refuses it, naming the
    file, never a traceback."""
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.eval]\napp = "probe_agents:AGENTS\n')  # the quote never closes
    with pytest.raises(HostOptionError) as refused:
        LangGraphHost(tmp_path)
    said = str(refused.value)
    assert said.startswith(f"{pyproject}: ") and "\n" not in said


def test_a_trials_evidence_names_the_tier_it_ran_at(
    corpus: Any, host: LangGraphHost, plugins: PluginSet
) -> None:
    """The Evidence says the tier the Trial ran at: a recorded transcript carries it, and the
    report shows each Case's tier from it (a Host of graphs runs L2 only)."""
    seen: dict[str, Any] = {}
    card = run_sweep(
        corpus,
        host,
        ScriptedBinding(),
        plugins,
        select=["tool-choice-billing-ticket-goes-to-billing"],
        on_evidence=lambda case, evidence: seen.__setitem__(case.id, evidence),
    )
    [trial] = card.trials
    assert trial.outcome == "passed"
    assert seen["tool-choice-billing-ticket-goes-to-billing"].tier == "l2"


def test_a_graph_without_a_tool_node_answers_and_testifies_to_no_tool_calls(
    tmp_path: Path, plugins: PluginSet
) -> None:
    """A graph with no ToolNode still runs its Trial: its answer is the Evidence, and the Host,
    which can put its witness in front of no Tool, testifies to no Tool calls (None, not [])."""
    host = LangGraphHost(tmp_path, app="probe_agents:CHATTY")
    case = {**BASE, "agent": "chatter", "platformTools": []}
    corpus = tmp_path / "corpus"
    (corpus / "soul").mkdir(parents=True)
    (corpus / "chat.json").write_text(json.dumps({**case, "id": "chat"}))
    seen: dict[str, Any] = {}
    try:
        loaded = Loader(plugins, host, judge="no-judge").load(corpus)
        card = run_sweep(
            loaded,
            host,
            ScriptedBinding(),
            plugins,
            on_evidence=lambda c, evidence: seen.__setitem__(c.id, evidence),
        )
    finally:
        host.close()
    [trial] = card.trials
    assert (trial.outcome, trial.error) == ("passed", None)
    assert (seen["chat"].output_text, seen["chat"].tool_calls) == ("Done.", None)
