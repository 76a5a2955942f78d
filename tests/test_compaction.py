"""Compaction under a context token budget (L2): the last request the model was sent is read
back as the binding sent it. Broken on purpose, the Cases that measure it turn FAIL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agent_runtime import compaction, loop
from eval_core._loading.corpus import Corpus
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from tests.conftest import outcomes, red

COMPACTED = [
    "support-a-long-conversation-is-compacted-to-its-token-budget",
    "support-compaction-keeps-the-first-line-of-each-earlier-message",
    "triage-compaction-keeps-this-turns-tool-result-whole",
]
WHOLE = "finance-a-conversation-within-its-budget-is-sent-whole"
ALL = [*COMPACTED, WHOLE]


def test_the_compaction_cases_pass_against_the_real_runtime(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    assert outcomes(corpus, real_host, plugins, ALL) == dict.fromkeys(ALL, "passed")


def test_a_runtime_that_never_compacts_fails_the_compaction_cases(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "compact", lambda system, messages, budget: (list(messages), None))
    red(corpus, real_host, plugins, COMPACTED)
    assert outcomes(corpus, real_host, plugins, [WHOLE]) == {WHOLE: "passed"}


def test_a_runtime_that_compacts_within_the_budget_fails_the_whole_case(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = compaction.compact
    monkeypatch.setattr(loop, "compact", lambda system, messages, budget: real(system, messages, 1))
    assert outcomes(corpus, real_host, plugins, [WHOLE]) == {WHOLE: "failed"}


def test_a_compaction_that_folds_the_latest_message_too_fails_the_cases_that_read_it(
    corpus: Corpus, real_host: Host, plugins: PluginSet, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = compaction.compact

    def everything(
        system: str, messages: Sequence[dict[str, Any]], budget: int
    ) -> tuple[list[dict[str, Any]], Any]:
        sent, folded = real(system, [*messages, {"role": "user", "content": ""}], budget)
        return sent[:1], folded

    monkeypatch.setattr(loop, "compact", everything)
    red(
        corpus,
        real_host,
        plugins,
        [
            "support-a-long-conversation-is-compacted-to-its-token-budget",
            "triage-compaction-keeps-this-turns-tool-result-whole",
        ],
    )
