"""Compaction under a context token budget (L2): the last request the model was sent is read
back as the binding sent it. Broken on purpose, the Cases that measure it turn FAIL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agent_runtime.turn import compaction, loop
from tests.conftest import Sweep

COMPACTED = [
    "support-a-long-conversation-is-compacted-to-its-token-budget",
    "support-compaction-keeps-the-first-line-of-each-earlier-message",
    "triage-compaction-keeps-this-turns-tool-result-whole",
]
WHOLE = "finance-a-conversation-within-its-budget-is-sent-whole"
ALL = [*COMPACTED, WHOLE]


def test_the_compaction_cases_pass_against_the_real_runtime(sweep: Sweep) -> None:
    sweep.green(ALL)


def test_a_runtime_that_never_compacts_fails_the_compaction_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loop, "compact", lambda system, messages, *_: (list(messages), None))
    sweep.red(COMPACTED)
    sweep.green([WHOLE])


def test_a_runtime_that_compacts_within_the_budget_fails_the_whole_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = compaction.compact
    monkeypatch.setattr(loop, "compact", lambda system, messages, *_: real(system, messages, 1))
    assert sweep.outcomes([WHOLE]) == {WHOLE: "failed"}


def test_a_compaction_that_folds_the_latest_message_too_fails_the_cases_that_read_it(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = compaction.compact

    def everything(
        system: str, messages: Sequence[dict[str, Any]], budget: int, own: int | None = None
    ) -> tuple[list[dict[str, Any]], Any]:
        sent, folded = real(system, [*messages, {"role": "user", "content": ""}], budget)
        return sent[:1], folded

    monkeypatch.setattr(loop, "compact", everything)
    sweep.red(
        [
            "support-a-long-conversation-is-compacted-to-its-token-budget",
            "triage-compaction-keeps-this-turns-tool-result-whole",
        ],
    )


def test_a_compaction_that_takes_the_attached_files_for_the_users_words_fails_the_photo_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Files a ``file_read`` attached ride in a user message the Turn adds: a runtime that
    looks for the latest user message among the Turn's own messages folds the user's question
    away (the runtime did, until sample 15's triage found it)."""
    real = compaction.compact
    photo = "files-a-photo-read-under-a-token-budget-leaves-the-question-whole"
    sweep.green([photo])
    monkeypatch.setattr(
        loop, "compact", lambda system, messages, budget, own: real(system, messages, budget)
    )
    sweep.red([photo])
