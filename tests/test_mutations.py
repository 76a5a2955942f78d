"""Mutation tests: break the runtime's code on purpose and watch exactly the Cases that measure
it fail.

A Case that stays green when its mechanism is broken measures nothing; a Case that goes red
when an unrelated mechanism is broken is measuring the wrong thing. Red means FAIL: an errored
Trial is a harness or vendor fault, never comparable in a delta, so it proves nothing.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_runtime import hosting
from agent_runtime.guards import guardrails
from agent_runtime.guards.guardrails import (
    STAGE_KEYS,
    STAGES,
    GuardDecision,
    GuardrailConfig,
    Guardrails,
)
from agent_runtime.guards.sensitive import PATTERNS
from agent_runtime.hosting import PLATFORM_FLOOR
from agent_runtime.model import ToolCallRequest
from agent_runtime.turn import arguments
from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from tests.conftest import ROOT, ids_where

GUARDRAILS = yaml.safe_load((ROOT / "corpus" / "soul" / "guardrails.yaml").read_text())
GUARDS = [
    (STAGE_KEYS[key], entry["guard"]) for key, entries in GUARDRAILS.items() for entry in entries
]
"""(decision stage, guard) of every guard the Soul configures (guardrails.yaml spells the stages
``tool-call``/``tool-result``; a decision records them as ``tool_call``/``tool_result``)."""


def red_cases(plugins: PluginSet, directory: Path) -> tuple[Corpus, set[str]]:
    """The Cases that FAIL; any other verdict but PASS is an error of the test."""
    host = plugins.hosts["agent-runtime"](directory / "soul")
    corpus = Loader(plugins, host, judge="no-judge").load(directory)
    card = run_sweep(corpus, host, ScriptedBinding(), plugins)
    host.close()
    verdicts = card.verdicts()
    odd = {case: v for case, v in verdicts.items() if v not in ("PASS", "FAIL")}
    assert not odd, f"not a pass or a fail: {odd}"
    return corpus, {case for case, verdict in verdicts.items() if verdict == "FAIL"}


def red_exactly(
    plugins: PluginSet,
    directory: Path,
    predicate: Callable[[dict[str, Any]], bool],
    at_least: int = 1,
) -> None:
    """The mutation in force turns red exactly the Cases of ``directory`` that ``predicate``
    picks, and they are at least ``at_least`` (a predicate that picks none would prove nothing)."""
    picked = ids_where(directory, predicate)
    assert len(picked) >= at_least, picked
    assert red_cases(plugins, directory)[1] == picked


def runs_own(case: object, guard: str) -> bool:
    """The Case brings a guardrail policy of its own that runs this guard (a Routine's)."""
    import msgspec

    def walk(value: object) -> bool:
        if isinstance(value, dict):
            return value.get("guard") == guard or any(walk(v) for v in value.values())
        return isinstance(value, list) and any(walk(v) for v in value)

    fields = msgspec.to_builtins(case)
    return walk({k: v for k, v in fields.items() if k != "expect"})


def asserts_guard(corpus: Corpus, stage: str, guard: str) -> set[str]:
    """Cases whose Expectations say this guard refused, or that its stage was checked, and
    that depend on the Soul's configuration of it (not on a policy of their own)."""
    ids = set()
    for case in corpus.cases:
        if runs_own(case, guard):
            continue
        for e in case.expect:
            data = {"kind": e.kind_name, **{f: getattr(e, f) for f in e.__struct_fields__}}
            if data["kind"] == "guardrail_blocked" and data["guard"] == guard:
                ids.add(case.id)
            if data["kind"] == "guardrail_allowed" and data["stage"] == stage:
                ids.add(case.id)
    return ids


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("mutant") / "corpus"
    shutil.copytree(ROOT / "corpus", directory, ignore=shutil.ignore_patterns("red-team"))
    return directory


def test_the_unmutated_corpus_is_green(plugins: PluginSet, copy: Path) -> None:
    assert red_cases(plugins, copy)[1] == set()


SCREENED_ROUTINES = {
    ("tool_result", "untrusted_content"): {
        "l3-routine-a-provider-reply-its-guard-withholds-fails-the-state"
    }
}
"""Routine Cases whose provider reply the Soul's guard screens: a Routine records no guard
decision for a reply, so they assert what the guard's refusal did (the State failed, the
effect applied once), and go red with the guard."""


def screened(stage: str, guard: str) -> set[str]:
    return SCREENED_ROUTINES.get((stage, guard), set())


def blocks_with(corpus: Corpus, guard: str) -> set[str]:
    """Cases whose Expectations say this guard refused something."""
    return {
        case.id
        for case in corpus.cases
        for e in case.expect
        if e.kind_name == "guardrail_blocked" and getattr(e, "guard", None) == guard
    }


# each guard's own detection code, broken so that it never finds what it looks for
GUARD_CODE = {
    "prompt_injection": ("find_injection", lambda text: None),
    "untrusted_content": ("find_agent_order", lambda text: None),
    "content_filter": (
        "PATTERNS",
        {name: replace(pattern, find=lambda text: []) for name, pattern in PATTERNS.items()},
    ),
}
BROKEN_GUARDS = [*GUARD_CODE, "tool_blocklist"]


def break_guard(monkeypatch: pytest.MonkeyPatch, guard: str) -> None:
    """Break one of ``BROKEN_GUARDS`` in the runtime: its detection code never finds what it
    looks for (``tool_blocklist``: every call it would refuse is allowed)."""
    if guard == "tool_blocklist":
        real = Guardrails.check_tool_call

        def nothing_listed(self: Guardrails, call: ToolCallRequest) -> list[GuardDecision]:
            return [
                GuardDecision("tool_call", d.guard, False, "mutated: allowed")
                for d in real(self, call)
            ]

        monkeypatch.setattr(Guardrails, "check_tool_call", nothing_listed)
    else:
        name, broken = GUARD_CODE[guard]
        monkeypatch.setattr(guardrails, name, broken)


@pytest.mark.parametrize("guard", BROKEN_GUARDS)
def test_breaking_a_guards_code_fails_exactly_its_cases(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch, guard: str
) -> None:
    break_guard(monkeypatch, guard)
    corpus, red = red_cases(plugins, copy)
    expected = blocks_with(corpus, guard)
    assert expected, f"no Case asserts that {guard} blocks"
    assert red == expected | screened("tool_result", guard)


@pytest.mark.parametrize(("stage", "guard"), GUARDS, ids=[f"{s}-{g}" for s, g in GUARDS])
def test_removing_a_guard_from_the_soul_turns_exactly_its_cases_red(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch, stage: str, guard: str
) -> None:
    """The guard goes from the Soul, and from the platform's floor that a Case hosted on the
    platform runs as well (:mod:`agent_runtime.hosting`): a guard removed is removed wherever
    a Case's Turn would have found it."""
    floor = GuardrailConfig(
        **{s: tuple(g for g in getattr(PLATFORM_FLOOR, s) if g.guard != guard) for s in STAGES}
    )
    monkeypatch.setattr(hosting, "floored", lambda soul: soul.merged(floor))
    mutated = {s: [e for e in entries if e["guard"] != guard] for s, entries in GUARDRAILS.items()}
    path = copy / "soul" / "guardrails.yaml"
    path.write_text(yaml.safe_dump(mutated))
    try:
        corpus, red = red_cases(plugins, copy)
    finally:
        path.write_text(yaml.safe_dump(GUARDRAILS))
    expected = asserts_guard(corpus, stage, guard)
    assert expected, f"no Case asserts {guard} at {stage}"
    assert red == expected | screened(stage, guard)


def test_a_runtime_that_never_checks_arguments_fails_the_schema_cases(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arguments, "problem", lambda schema, value: None)
    _, red = red_cases(plugins, copy)
    assert red == {
        "triage-a-search-with-a-limit-of-zero-is-refused-by-the-schema",
        "triage-assigning-nobody-is-refused-by-the-schema",
        "triage-an-integration-digest-given-as-a-number-is-refused-by-the-schema",
        "support-a-web-fetch-with-a-blank-prompt-is-refused-by-the-schema",
        "support-a-slack-post-to-a-blank-channel-is-refused-by-the-schema",
        "finance-a-schema-sent-as-text-to-validate-artifact-is-refused-by-the-schema",
        "soul-author-a-soul-write-of-an-unknown-kind-is-refused-by-the-schema",
        "support-a-ticket-id-that-is-a-number-is-refused-by-the-schema",
        "support-a-tool-whose-schema-gives-a-count-as-true-never-runs",
        "records-readonly-arguments-outside-the-schema-stop-after-two-repairs",
        "l3-repairs-made-before-a-worker-died-still-count-after-it-is-replaced",
        "triage-a-search-query-past-its-length-limit-is-repaired",
        "l3-journey-statuses-fold-to-the-first-failed-turn",
        "workspace-an-api-request-with-an-unknown-method-is-refused-by-the-schema",
        "support-a-lookup-without-a-ticket-id-is-refused-by-the-schema",
        "triage-a-search-with-a-limit-above-fifty-is-refused-by-the-schema",
        "triage-a-repository-without-its-owner-is-refused-by-the-schema",
        "triage-an-issue-title-over-256-characters-is-refused-by-the-schema",
        "support-an-empty-slack-message-is-refused-by-the-schema",
        "triage-labelling-an-issue-with-no-labels-is-refused-by-the-schema",
        "triage-a-label-given-twice-is-refused-by-the-schema",
        "triage-a-label-that-is-not-text-is-refused-by-the-schema",
        "triage-assigning-more-than-ten-people-is-refused-by-the-schema",
        "triage-an-issue-number-that-is-a-boolean-is-refused-by-the-schema",
        "triage-a-plan-round-without-its-tool-is-refused-by-the-schema",
        "support-a-keyword-outside-the-pre-check-is-still-enforced",
        "support-a-tool-whose-schema-is-invalid-never-runs",
        "support-a-tool-whose-schema-holds-a-broken-pattern-is-never-run",
        "support-a-third-attempt-after-two-schema-repairs-still-runs",
        "concierge-a-skill-call-naming-no-skill-is-left-to-the-schema",
        "l3-an-approval-is-never-asked-for-arguments-the-schema-refuses",
        "l3-routine-refuses-arguments-its-tool-contract-does-not-take",
        "concierge-a-skill-call-with-a-blank-name-is-refused-by-the-schema",
        "support-a-tool-whose-schema-leaves-a-type-blank-never-runs",
        "support-a-tool-whose-schema-gives-its-properties-as-bare-type-names-never-runs",
        "support-a-tool-whose-schema-refers-to-itself-without-end-never-runs",
        "support-an-order-number-given-as-a-number-is-refused-by-a-schema-naming-no-object-type",
        "support-a-channel-named-twice-is-refused-by-a-schema-of-unique-items",
    }


def test_bypassing_the_assembler_turns_the_prompt_cases_red(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_runtime.turn.loop

    monkeypatch.setattr(
        agent_runtime.turn.loop,
        "assemble_system_prompt",
        lambda *args, **kwargs: "You are a helpful assistant.",
    )
    corpus, red = red_cases(plugins, copy)
    prompt_cases = {
        c.id for c in corpus.cases if any(e.kind_name == "prompt_contains" for e in c.expect)
    }
    assert prompt_cases
    assert prompt_cases <= red
