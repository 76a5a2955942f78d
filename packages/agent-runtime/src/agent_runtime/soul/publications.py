"""Soul publications: which published bundle is active, recorded in the runtime's database.

A publication is a commit whose tree loaded; the active one is what the next Turn's loader reads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agent_runtime.store.database import Connection


def active_bundle(conn: Connection) -> str | None:
    """The directory of the active Soul publication (what the next Turn's loader reads)."""
    row = conn.execute("SELECT bundle FROM soul_publications WHERE active = 1").fetchone()
    return None if row is None else str(row[0])


def publish(
    conn: Connection, commit: str, bundle: str, artifacts: Sequence[str], run_id: str | None
) -> None:
    """Make a published bundle the active one (the previous one stays in history)."""
    row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM soul_publications").fetchone()
    conn.execute("UPDATE soul_publications SET active = 0 WHERE active = 1")
    conn.execute(
        "INSERT INTO soul_publications (seq, commit_sha, bundle, artifacts, run_id, active) "
        "VALUES (?, ?, ?, ?, ?, 1)",
        (int(row[0]) + 1, commit, bundle, json.dumps(list(artifacts)), run_id),
    )
