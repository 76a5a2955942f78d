"""The pydantic-ai Host against the Host contract: the conformance probes, the refusals at
load (a tier or a service it does not offer, named), and options that cannot work."""

from __future__ import annotations

import json
import time
from functools import partial
from pathlib import Path

import pytest

from eval_core.hosts import CorpusError, Host, HostOptionError, Loader, PluginSet, TeamApp
from eval_host_pydantic_ai.host import PydanticAiHost
from eval_host_pydantic_ai.loop import CLOSE_SECONDS
from eval_kit import HostProbe, assert_host_conforms


def test_the_pydantic_ai_host_conforms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    probe = HostProbe(
        factory=partial(PydanticAiHost, app="conformance_app:AGENTS"),
        agent="support",
        tool="lookup_order",
        platform=True,
        arguments={"order_id": "A-1001"},
        raising_agent="broken",
        raising_tool="explode",
    )
    assert_host_conforms(probe, tmp_path)


def _problems(plugins: PluginSet, host: Host, tmp_path: Path, **fields: object) -> list[str]:
    """The loader's refusals of one Case, ``$.path: reason`` each; every one names the file."""
    case = {
        "id": "c",
        "tier": "l2",
        "agent": "support",
        "input": [{"role": "user", "content": "Where is order A-1001?"}],
        "script": [{"kind": "text", "text": "It has shipped."}],
        "expect": [{"kind": "loop_status", "status": "completed"}],
        **fields,
    }
    (tmp_path / "c.json").write_text(json.dumps(case))
    with pytest.raises(CorpusError) as refused:
        Loader(plugins, host, judge="no-judge", needs_soul=False).load(tmp_path)
    assert all(p.file == str(tmp_path / "c.json") for p in refused.value.problems)
    return [f"{p.path}: {p.reason}" for p in refused.value.problems]


def test_an_l3_case_is_refused_at_load_naming_the_host(
    plugins: PluginSet, example_host: Host, tmp_path: Path
) -> None:
    problems = _problems(plugins, example_host, tmp_path, tier="l3")
    assert "$.tier: Host 'pydantic-ai' offers l2 only; this Case is l3" in problems


def test_a_case_needing_a_service_the_host_lacks_is_refused_naming_both(
    plugins: PluginSet, example_host: Host, tmp_path: Path
) -> None:
    problems = _problems(plugins, example_host, tmp_path, contextTokenBudget=4000)
    assert any(
        p.startswith("$.contextTokenBudget: ") and "Host 'pydantic-ai' does not offer at l2" in p
        for p in problems
    ), problems


def test_an_unknown_agent_and_tool_are_refused_in_the_hosts_words(
    plugins: PluginSet, example_host: Host, tmp_path: Path
) -> None:
    problems = _problems(plugins, example_host, tmp_path, agent="suport", platformTools=["fly"])
    assert (
        "$.agent: unknown agent 'suport': not in support_agent.agent:AGENTS, which has: support, "
        "triage; did you mean 'support'?" in problems
    )
    assert "$.platformTools[0]: 'fly' does not resolve to a shipped platform Tool" in problems
    assert not any("Eval Soul" in p for p in problems), problems


def test_a_case_of_an_agent_the_app_lacks_is_refused_for_it_not_for_the_hosts_given_text(
    plugins: PluginSet, example_host: Host, tmp_path: Path
) -> None:
    """The loader asks the Host for the agent's given text to ground an output text the Case
    does not give itself, even when the agent is unknown: the Host answers none (not a fault of
    its own), so the text is refused as ungrounded beside the agent."""
    problems = _problems(
        plugins,
        example_host,
        tmp_path,
        agent="nobody",
        expect=[{"kind": "output_contains", "text": "Politely decline anything else"}],
    )
    assert problems == [
        "$.agent: unknown agent 'nobody': not in support_agent.agent:AGENTS, which has: "
        "support, triage",
        "$.expect[0].text: 'Politely decline anything else' is not grounded in what the model "
        "was given (context, input, Tool results, File content, Tool descriptions) or give an "
        "`ungrounded` reason",
    ]


SUPPORT_TOOLS = "it has: estimate_delivery, lookup_order, refund_order, reorder, search_help"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {"expect": [{"kind": "tool_not_called", "name": "refund_orders"}]},
            "$.expect[0].name: 'refund_orders' is not a Tool of agent 'support' of "
            f"support_agent.agent:AGENTS; {SUPPORT_TOOLS}; did you mean 'refund_order'?",
        ),
        (
            {
                "script": [
                    {
                        "kind": "tool_calls",
                        "calls": [{"callId": "c1", "name": "search_hlp", "arguments": {}}],
                    },
                    {"kind": "text", "text": "Found it."},
                ]
            },
            "$.script[0].calls[0].name: 'search_hlp' is not a Tool of agent 'support' of "
            f"support_agent.agent:AGENTS; {SUPPORT_TOOLS}; did you mean 'search_help'? (a call "
            'the Case scripts to a Tool the agent lacks, on purpose, says "unoffered": true)',
        ),
        (
            {"toolResults": [{"name": "lookup_ordr", "output": {}}]},
            "$.toolResults[0].name: scripted result for 'lookup_ordr', which the Case does not "
            "declare (tools, platformTools)",
        ),
        (
            {"platformTools": ["lookup_ordr"]},
            "$.platformTools[0]: 'lookup_ordr' does not resolve to a shipped platform Tool; did "
            "you mean 'lookup_order'?",
        ),
    ],
)
def test_a_misspelt_tool_is_refused_against_the_agents_own_tools(
    plugins: PluginSet, example_host: Host, tmp_path: Path, fields: dict[str, object], said: str
) -> None:
    assert _problems(plugins, example_host, tmp_path, **fields) == [said]


def test_the_agents_mcp_tools_and_the_cases_own_tools_are_offered(
    plugins: PluginSet, example_host: Host
) -> None:
    """search_help is the help centre's (an MCP server's), listed at load; a Tool the Case
    declares is offered beside the agent's."""
    from eval_core.hosts import CaseBase, Message, ToolDecl

    case = CaseBase(
        id="c",
        tier="l2",
        agent="support",
        input=[Message(role="user", content="hi")],
        expect=[],
        tools=[ToolDecl(name="escalate", input_schema={"type": "object"})],
    )
    offered = example_host.offered_tools(case)
    assert offered is not None
    assert offered.names == {
        "estimate_delivery",
        "lookup_order",
        "refund_order",
        "reorder",
        "search_help",
        "escalate",
    }
    assert offered.owner == "agent 'support' of support_agent.agent:AGENTS with the Case's tools"


def test_another_agents_tool_is_not_this_agents(
    plugins: PluginSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per agent, not the union: the conformance app's broken agent has explode, support does
    not, though both are the app's platform Tools."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    host = PydanticAiHost(tmp_path, app="conformance_app:AGENTS")
    try:
        case_dir = tmp_path / "corpus"
        case_dir.mkdir()
        problems = _problems(plugins, host, case_dir, platformTools=["explode"])
    finally:
        host.close()
    assert problems == [
        "$.platformTools[0]: 'explode' is not a Tool of agent 'support' of conformance_app:AGENTS; "
        "it has: lookup_order, search_help"
    ]


def test_the_example_opens_and_sweeps_without_an_eval_soul(plugins: PluginSet) -> None:
    """Through the Host's factory, as ``eval sweep --host pydantic-ai`` opens it: no soul/ in
    the Corpus, the factory given the Corpus directory, the lock checked."""
    from eval_core._loading.opening import open_corpus
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding

    corpus = Path(__file__).parents[3] / "examples" / "pydantic-ai-support" / "corpus"
    assert not (corpus / "soul").exists()
    opened = open_corpus(corpus, "pydantic-ai", False, found=plugins)
    try:
        assert opened.corpus.soul_dir is None and opened.corpus.soul_hash == ""
        card = run_sweep(opened.corpus, opened.host, ScriptedBinding(), plugins, select=[
            "order-status-is-looked-up"
        ])  # fmt: skip
    finally:
        opened.host.close()
    assert [t.outcome for t in card.trials] == ["passed"]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"app": "no_such_package.agents:AGENTS"}, "importing no_such_package.agents raised"),
        ({"app": "json"}, "expected package.module:AGENTS"),
        ({"app": "json:dumps"}, "expected Agents (a mapping, a list or one), got function"),
        ({"app": "json:nothing"}, "json has no 'nothing'"),
    ],
)
def test_an_app_option_that_cannot_work_is_one_line(
    tmp_path: Path, options: dict[str, str], said: str
) -> None:
    with pytest.raises(HostOptionError) as refused:
        PydanticAiHost(tmp_path, **options)
    assert said in str(refused.value) and "\n" not in str(refused.value)


def _app(spec: str, value: object) -> TeamApp:
    """What ``--host-option app=spec`` named, as the core's reader hands it to the Host."""
    return TeamApp(spec=spec, source="--host-option app", module=json, value=value, settings={})


def test_agents_may_be_a_list_of_named_agents_or_one_agent() -> None:
    """The forms an app's ``AGENTS`` may take besides a mapping, each Agent by its own name."""
    from pydantic_ai import Agent

    from eval_host_pydantic_ai.app import _named

    support, billing = Agent(name="support"), Agent(name="billing")
    assert _named(_app("desk:AGENTS", [support, billing])) == {
        "support": support,
        "billing": billing,
    }
    assert _named(_app("desk:AGENTS", (billing,))) == {"billing": billing}
    assert _named(_app("desk:support", support)) == {"support": support}
    with pytest.raises(HostOptionError, match="an Agent in the list has no name"):
        _named(_app("desk:AGENTS", [support, Agent()]))
    with pytest.raises(HostOptionError, match="no Agents"):
        _named(_app("desk:AGENTS", []))


def test_without_an_app_the_host_says_where_to_name_one(tmp_path: Path) -> None:
    with pytest.raises(HostOptionError, match=r"give --host-option app=package.module:AGENTS"):
        PydanticAiHost(tmp_path)


HOURS_APP = """
from pydantic_ai import Agent

AGENTS = {"hours": Agent(name="hours", instructions="Say when the desk is open.")}
"""


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("timeout", "soon", "timeout must be a number, not 'soon'"),
        ("request_limit", "8 requests", "request_limit must be a number, not '8 requests'"),
        ("tool_calls_limit", "-1", "tool_calls_limit must be positive, not '-1'"),
    ],
)
def test_a_limit_that_is_no_positive_number_is_refused_in_one_line(
    name: str, value: str, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A limit or timeout from ``[tool.eval]`` or ``--host-option`` is the team's text: one that
    is not a positive number is refused naming it, never a traceback."""
    (tmp_path / "hours_app.py").write_text(HOURS_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(HostOptionError) as refused:
        PydanticAiHost(tmp_path, app="hours_app:AGENTS", **{name: value})
    assert str(refused.value) == said


def test_limits_set_nowhere_are_the_reference_runtimes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team that sets no limit in ``[tool.eval]`` nor as a Host option gets the reference
    runtime's bound of 8 model requests a run, no bound on Tool calls, and the Host's own
    timeout."""
    from eval_host_pydantic_ai.host import TIMEOUT_SECONDS

    (tmp_path / "hours_app.py").write_text(HOURS_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PydanticAiHost(tmp_path, app="hours_app:AGENTS")
    try:
        assert (host.limits.request_limit, host.limits.tool_calls_limit) == (8, None)
        assert host.timeout == TIMEOUT_SECONDS
    finally:
        host.close()


CANNED_APP = """
from pydantic_ai import Agent
from pydantic_ai.agent import WrapperAgent


class Canned(WrapperAgent):
    \"\"\"The team's agent that answers every question from its cache, its model never asked.\"\"\"

    async def run(self, *args, **kwargs):
        return "The desk answers Monday to Friday."


AGENTS = {"hours": Canned(Agent(name="hours"))}
"""


def test_an_agent_that_answers_without_calling_its_model_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Host lists what an agent offers its model by asking the agent itself: one whose run
    never reaches its model (a custom ``AbstractAgent``) has nothing to list, and is refused
    at load naming the app and the agent, in one line."""
    (tmp_path / "canned_hours_app.py").write_text(CANNED_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(HostOptionError) as refused:
        PydanticAiHost(tmp_path, app="canned_hours_app:AGENTS")
    assert str(refused.value) == (
        "app 'canned_hours_app:AGENTS': agent 'hours' answered without calling its model, so the "
        "Host cannot list the Tools it offers"
    )


DEAD_HELP_APP = """
import sys
from pathlib import Path

from fastmcp.client.transports import PythonStdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset

help_centre = MCPToolset(
    PythonStdioTransport(Path(__file__).with_name("dead_help_server.py"), python_cmd=sys.executable)
)
AGENTS = {"support": Agent(name="support", toolsets=[help_centre])}
"""


def test_an_mcp_server_that_cannot_start_is_refused_at_once_with_its_own_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Host enters an agent's MCP servers when it opens: a server whose process ends
    before it serves (a team's help centre that crashes on start) is refused in one line with
    the failure the MCP client met, as soon as it is met, not after the Host's wait runs out."""
    (tmp_path / "dead_help_server.py").write_text("raise SystemExit('no help centre today')\n")
    (tmp_path / "dead_help_app.py").write_text(DEAD_HELP_APP)
    monkeypatch.syspath_prepend(str(tmp_path))
    started = time.monotonic()
    with pytest.raises(HostOptionError) as refused:
        PydanticAiHost(tmp_path, app="dead_help_app:AGENTS")
    assert time.monotonic() - started < CLOSE_SECONDS
    said = str(refused.value)
    assert said.startswith("app 'dead_help_app:AGENTS': could not open its agents: McpError: ")
    assert "\n" not in said


def test_an_app_naming_something_that_is_no_agent_is_refused_naming_it() -> None:
    """An ``AGENTS`` mapping whose value is not a pydantic-ai Agent (a factory, a string) is
    refused at load naming the entry and what it is."""
    from pydantic_ai import Agent

    from eval_host_pydantic_ai.app import _named

    with pytest.raises(HostOptionError) as refused:
        _named(_app("desk:AGENTS", {"support": Agent(name="support"), "billing": "billing-agent"}))
    assert (
        str(refused.value)
        == "--host-option app 'desk:AGENTS': 'billing' is a str, not a pydantic-ai Agent"
    )


def test_the_limits_in_the_projects_settings_reach_pydantic_ai(example_host: Host) -> None:
    """Built outside ``eval`` (the Python API, the conformance kit), the Host reads its limits
    from ``[tool.eval]`` itself: the example's ``request_limit = 6`` and ``tool_calls_limit =
    10`` become pydantic-ai's ``UsageLimits`` (``eval`` hands them over as Host options)."""
    assert isinstance(example_host, PydanticAiHost)
    limits = example_host.limits
    assert (limits.request_limit, limits.tool_calls_limit) == (6, 10)


def test_the_load_cache_is_keyed_by_this_host_pydantic_ai_the_app_and_its_offers(
    example_host: Host,
) -> None:
    """A fingerprint that fails turns the checked-Corpus cache off without a word (a cache may
    never change a verdict): so its parts are asserted here, each one."""
    import eval_host_pydantic_ai
    from eval_core.hosts import fingerprint, version

    assert isinstance(example_host, PydanticAiHost)
    ours = fingerprint("eval-host-pydantic-ai", eval_host_pydantic_ai).digest
    key = example_host.fingerprint()
    assert key.startswith(f"{ours} pydantic-ai {version('pydantic-ai-slim')} ")
    code, spec, offers = key.rsplit(" ", 2)
    assert spec == example_host.app.spec and code.startswith(ours)
    assert len(offers) == 16 and int(offers, 16) >= 0  # the digest of what each agent is offered
