"""What a stale worker's write left in a Run's rows, as the stale-write record words it: each
row written or rewritten, and per table how many rows went."""

from __future__ import annotations

from agent_runtime.durable.run_rows import rows_landed


def test_a_row_written_a_row_rewritten_and_rows_deleted_are_each_named() -> None:
    before = {
        "runs": frozenset({("'run-1'", "'running'")}),
        "turns": frozenset({("'turn-1'",), ("'turn-2'",), ("'turn-3'",)}),
    }
    after = {
        "runs": frozenset({("'run-1'", "'succeeded'")}),  # rewritten
        "turns": frozenset({("'turn-1'",)}),  # two gone
        "states": frozenset({("'state-9'",)}),  # written
    }
    assert rows_landed(before, after) == [
        "runs: 'run-1', 'succeeded'",
        "states: 'state-9'",
        "turns: 2 row(s) deleted",
    ]


def test_nothing_changed_is_nothing_landed() -> None:
    rows = {"runs": frozenset({("'run-1'", "'waiting'")})}
    assert rows_landed(rows, dict(rows)) == []
