"""Mutation tests for issue 21, sections 3 and 7: break the runtime's guard texts, its denial
reason and its Message metadata on purpose, and watch exactly the Cases that read them fail."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_runtime.durable import executor as durable
from agent_runtime.guards import guardrails
from agent_runtime.turn import loop, tool_step
from eval_core._plugins.plugins import PluginSet
from tests.conftest import ROOT
from tests.test_mutations import red_cases

INPUT = "This request was blocked by a safety guardrail."
OUTPUT = "The response was blocked by a content guardrail."
DENIAL = "tool_blocklist: tool_blocklist:"


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("mutant") / "corpus"
    shutil.copytree(ROOT / "corpus", directory, ignore=shutil.ignore_patterns("red-team"))
    return directory


def reading(directory: Path, wanted: Callable[[dict[str, Any]], bool]) -> set[str]:
    """The Cases with an Expectation (of any Turn) that ``wanted`` picks."""
    ids = set()
    for path in directory.glob("*.json"):
        case = json.loads(path.read_text())
        expects = list(case.get("expect", []))
        for turn in case.get("journey", []) or []:
            expects += turn.get("expect", [])
        if any(wanted(e) for e in expects):
            ids.add(case["id"])
    return ids


def test_the_originals_refusal_texts_are_what_the_refusal_cases_read(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "INPUT_REFUSAL", "I can't act on that message.")
    monkeypatch.setattr(guardrails, "INPUT_REFUSAL", "I can't act on that message.")
    monkeypatch.setattr(guardrails, "OUTPUT_REFUSAL", "I can't share that.")
    _, red = red_cases(plugins, copy)
    expected = reading(copy, lambda e: e.get("text") in (INPUT, OUTPUT))
    assert expected, "no Case reads the refusal texts"
    assert red == expected


def test_the_model_visible_denial_reason_is_read_by_the_blocklist_case(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_step, "denial_reason", lambda d: f"{d.guard} said no")
    _, red = red_cases(plugins, copy)
    expected = reading(copy, lambda e: DENIAL in str(e.get("text", "")))
    assert "finance-refund-is-blocklisted" in expected
    assert red == expected


def test_the_message_tool_calls_are_read_back_from_the_store(
    plugins: PluginSet, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(durable.EventLog, "tool_calls", lambda self: [])
    _, red = red_cases(plugins, copy)
    expected = reading(
        copy,
        lambda e: (
            e.get("kind") == "persisted_message_metadata_equals"
            and str(e.get("path", "")).startswith("toolCalls")
        ),
    )
    assert expected, "no Case reads the Message's toolCalls"
    # a failed attempt leaves its reader a Message only when it has finished Tool calls (or
    # released text): with none read back, the exhausted-repairs Turn persists no answer, and
    # the truncated answer's Turn no Message whose reason the output-limit Case reads
    assert red == expected | {
        "l3-repairs-made-before-a-worker-died-still-count-after-it-is-replaced",
        "l3-fault-output-limit-is-caught-by-the-completion-guard",
    }
