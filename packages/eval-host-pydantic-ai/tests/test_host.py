"""The pydantic-ai Host against the Host contract: the conformance probes, the refusals at
load (a tier or a service it does not offer, named), and options that cannot work."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from eval_core.plugin import (
    CorpusError,
    Host,
    HostOptionError,
    HostProbe,
    Loader,
    PluginSet,
    assert_host_conforms,
)
from eval_host_pydantic_ai.host import PydanticAiHost


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
    (tmp_path / "soul").mkdir()
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
        Loader(plugins, host, judge="no-judge").load(tmp_path)
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


def test_an_unknown_agent_and_tool_are_refused_against_what_pydantic_ai_offers(
    plugins: PluginSet, example_host: Host, tmp_path: Path
) -> None:
    problems = _problems(plugins, example_host, tmp_path, agent="sales", platformTools=["fly"])
    assert "$.agent: unknown agent 'sales'; the Eval Soul has: support" in problems
    assert "$.platformTools[0]: 'fly' does not resolve to a shipped platform Tool" in problems


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


def test_without_an_app_the_host_says_where_to_name_one(tmp_path: Path) -> None:
    with pytest.raises(HostOptionError, match=r"give --host-option app=package.module:AGENTS"):
        PydanticAiHost(tmp_path)
