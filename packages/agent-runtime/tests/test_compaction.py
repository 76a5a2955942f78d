"""Compaction: the latest user message and what follows it are sent whole; older messages fold
into one summary of first lines, oldest dropped first; within the budget nothing changes."""

from __future__ import annotations

from agent_runtime.turn.compaction import SUMMARY_HEADING, compact, estimate

OLD = [
    {"role": "user", "content": "first question\nwith a second line"},
    {"role": "assistant", "content": None, "tool_calls": [{"name": "lookup_ticket"}]},
    {"role": "tool", "name": "lookup_ticket", "content": '{"status":"succeeded"}'},
    {"role": "assistant", "content": "an answer " * 40},
]
NOW = [{"role": "user", "content": "the latest question"}, {"role": "tool", "content": "x" * 80}]


def test_within_the_budget_nothing_is_compacted() -> None:
    messages = OLD + NOW
    assert compact("system", messages, estimate("system", messages)) == (messages, None)


def test_over_the_budget_older_messages_fold_into_first_lines() -> None:
    sent, folded = compact("system", OLD + NOW, 120)
    assert folded is not None and folded.folded == 4 and folded.dropped == 0
    assert sent[1:] == NOW
    summary = sent[0]["content"].splitlines()
    assert summary[:4] == [
        SUMMARY_HEADING,
        "- user: first question",
        "- assistant: called lookup_ticket",
        '- tool lookup_ticket: {"status":"succeeded"}',
    ]
    assert summary[4].endswith("…") and len(summary[4]) < 140


def test_the_oldest_lines_go_first_when_the_summary_does_not_fit() -> None:
    sent, folded = compact("system", OLD + NOW, 70)
    assert folded is not None and folded.dropped >= 1
    assert "older messages omitted" in sent[0]["content"]
    assert sent[1:] == NOW  # never folded, even when nothing fits


def test_the_files_a_tool_attached_never_stand_for_the_users_own_message() -> None:
    """The Turn adds the Files a ``file_read`` attached as a user message: the latest user
    message is looked for before the Turn's own messages, so the question stays whole."""
    attached = {"role": "user", "content": [{"type": "image", "filename": "pot.png"}]}
    turn = [{"role": "assistant", "content": None, "tool_calls": [{"name": "file_read"}]}]
    messages = [*OLD, *NOW, *turn, attached]
    sent, folded = compact("system", messages, 120, own=len(OLD) + len(NOW))
    assert folded is not None and folded.folded == len(OLD)
    assert sent[1:] == [*NOW, *turn, attached]
