"""A Run's rows as the database holds them, and what changed between two reads: the witness of
what a pass really wrote, whatever the runtime says of it (a late worker's refused write)."""

from __future__ import annotations

from collections.abc import Mapping

from agent_runtime.store.database import Connection

_RUN_ROWS: Mapping[str, str] = {
    "runs": "SELECT * FROM runs WHERE id = ?",
    "states": "SELECT * FROM states WHERE run_id = ?",
    "turns": "SELECT * FROM turns WHERE run_id = ?",
    "run_events": "SELECT * FROM run_events WHERE run_id = ?",
    "messages": "SELECT * FROM messages WHERE run_id = ?",
    "approvals": "SELECT * FROM approvals WHERE run_id = ?",
    "retry_waits": "SELECT * FROM retry_waits WHERE run_id = ?",
    "checkpoints": "SELECT c.* FROM checkpoints c JOIN states s ON s.id = c.state_id "
    "WHERE s.run_id = ?",
    "tool_effects": "SELECT e.* FROM tool_effects e JOIN states s ON s.id = e.state_id "
    "WHERE s.run_id = ?",
}
RunRows = dict[str, frozenset[tuple[str, ...]]]


def run_rows(conn: Connection, run_id: str) -> RunRows:
    """Every row of the Run as the database holds it, table by table (values as text)."""
    return {
        table: frozenset(
            tuple(repr(value) for value in row) for row in conn.execute(sql, (run_id,)).fetchall()
        )
        for table, sql in _RUN_ROWS.items()
    }


def rows_landed(before: RunRows, after: RunRows) -> list[str]:
    """What changed between two reads of a Run's rows: a line per row that now reads as it did
    not before (written, or an older row rewritten), and per table the rows gone."""
    lines: list[str] = []
    for table in _RUN_ROWS:
        old, new = before.get(table, frozenset()), after.get(table, frozenset())
        lines.extend(f"{table}: {', '.join(row)[:160]}" for row in sorted(new - old))
        gone = len(old) - len(old & new) - len(new - old)
        if gone > 0:
            lines.append(f"{table}: {gone} row(s) deleted")
    return lines
