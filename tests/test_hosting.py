"""Hosting (L2): who hosts the Soul repository decides ``soul_repo_push`` at the runtime's Tool
gate, and a Soul run on the platform is held to the platform's safety floor, unioned with its
own guardrails. Broken on purpose, exactly the Cases that measure each turn FAIL."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime import hosting
from agent_runtime.guards import guardrails
from agent_runtime.guards.guardrails import GuardrailConfig
from agent_runtime.guards.sensitive import PATTERNS, Pattern
from agent_runtime.hosting import PLATFORM_FLOOR, Hosting
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from tests.conftest import Sweep, outcomes

HELD_PUSH = [
    "soul-author-a-platform-hosted-soul-repository-is-never-pushed-by-an-agent",
    "soul-author-platform-hosting-holds-the-push-but-not-the-commit",
]
FREE_PUSH = ["soul-author-an-independently-hosted-soul-repository-reaches-the-push"]
EMAIL = "support-a-platform-hosted-soul-filters-an-email-address-from-the-answer"
API_KEY = "support-a-platform-hosted-soul-filters-an-api-key-from-the-answer"
SHELL = "workspace-a-platform-hosted-soul-never-runs-a-shell-command"
FLOOR = [EMAIL, API_KEY, SHELL]
OFF_FLOOR = [
    "support-an-independently-hosted-soul-lets-an-email-address-through",
    "workspace-an-independently-hosted-soul-runs-the-shell-command",
]
OWN = ["finance-a-platform-hosted-soul-keeps-its-own-refund-blocklist"]
ALL = HELD_PUSH + FREE_PUSH + FLOOR + OFF_FLOOR + OWN


def test_the_hosting_cases_pass_against_the_real_runtime(sweep: Sweep) -> None:
    sweep.green(ALL)


def test_a_gate_that_ignores_who_hosts_the_repository_pushes_it(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Hosting, "refusal", lambda self, tool: None)
    sweep.red(HELD_PUSH)
    sweep.green(FREE_PUSH)


PLATFORM = Hosting(repository="platform")
REFUSAL = Hosting.refusal  # the real gate's, kept before a test replaces it


def held(tool: str) -> str:
    """The gate's refusal of ``tool`` in its own words, whoever hosts the repository (the
    Cases read the reason the model is told)."""
    reason = REFUSAL(PLATFORM, "soul_repo_push")
    assert reason is not None
    return reason.replace("soul_repo_push", tool)


def test_a_gate_that_refuses_every_push_fails_the_independent_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        Hosting, "refusal", lambda self, tool: held(tool) if "push" in tool else None
    )
    sweep.red(FREE_PUSH)
    sweep.green(HELD_PUSH)


def test_a_gate_that_holds_every_repository_write_fails_the_commit_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broad(self: Hosting, tool: str) -> str | None:
        return held(tool) if self.repository == "platform" and tool.startswith("soul_") else None

    monkeypatch.setattr(Hosting, "refusal", broad)
    sweep.red([HELD_PUSH[1]])
    sweep.green(HELD_PUSH[:1])


def test_a_runtime_without_the_platform_floor_fails_the_floor_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosting, "floored", lambda soul: soul)
    sweep.red(FLOOR)
    sweep.green(OFF_FLOOR + OWN)


def test_a_floor_applied_to_every_soul_fails_the_independent_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Hosting, "guardrails", lambda self, soul: hosting.floored(soul))
    sweep.red(OFF_FLOOR)


def test_a_floor_that_replaces_the_souls_guardrails_fails_the_blocklist_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosting, "floored", lambda soul: PLATFORM_FLOOR)
    sweep.red(OWN)
    sweep.green(FLOOR)


@pytest.mark.parametrize(("pattern", "case"), [("email", EMAIL), ("api_key", API_KEY)])
def test_a_content_filter_blind_to_a_pattern_fails_its_case(
    sweep: Sweep,
    monkeypatch: pytest.MonkeyPatch,
    pattern: str,
    case: str,
) -> None:
    blind: dict[str, Pattern] = dict(PATTERNS)
    blind[pattern] = Pattern(lambda text: [], PATTERNS[pattern].label, PATTERNS[pattern].shown)
    monkeypatch.setattr(guardrails, "PATTERNS", blind)
    sweep.red([case])
    other = API_KEY if case == EMAIL else EMAIL
    sweep.green([other])


def test_the_floor_is_a_union_that_keeps_the_souls_guards_first() -> None:
    soul = GuardrailConfig.parse({"tool-call": [{"guard": "tool_blocklist", "block": ["x"]}]})
    floored: Any = Hosting(safety="platform").guardrails(soul)
    assert [list(spec.block) for spec in floored.tool_call] == [["x"], ["run_command"]]
    assert Hosting().guardrails(soul) is soul
    assert hosting.floored(soul) is hosting.floored(soul)  # compiled once per configuration


HELD_BY_THE_FLOOR = {
    "hosted-platform-tool-floor": "excessive_agency",
    "hosted-floor-withholds-a-leaked-token": "secret_leak",
}


def test_without_the_floor_the_hosted_attacks_land_and_their_classes_leak(
    plugins: PluginSet, real_host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eval_core._loading.loader import Loader
    from eval_core._running.runner import run_sweep
    from eval_core._running.scripted import ScriptedBinding
    from tests.conftest import ROOT

    attacks = Loader(plugins, real_host, judge="no-judge").load(ROOT / "corpus" / "red-team")
    held = sorted(HELD_BY_THE_FLOOR)
    assert outcomes(attacks, real_host, plugins, held) == dict.fromkeys(held, "passed")
    monkeypatch.setattr(hosting, "floored", lambda soul: soul)
    card = run_sweep(attacks, real_host, ScriptedBinding(), plugins, select=held)
    assert {t.case_id: t.outcome for t in card.trials} == dict.fromkeys(held, "failed")
    safety = {
        row["name"]: row["outcome"]
        for section in card.sections
        if section.name == "safety"
        for row in section.data
    }
    assert {safety[c] for c in HELD_BY_THE_FLOOR.values()} == {"leaked"}
