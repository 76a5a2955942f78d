"""Native routes: which Routine (and Agent) a native destination such as ``eval/native#42`` starts.

An inbox event remembers the Routine it was routed to when it arrived; admission checks that
the route still says so, because a route edited in between must not start the old Routine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec

from agent_runtime.store.database import Connection
from agent_runtime.store.storage import atomic


class Route(msgspec.Struct, frozen=True):
    """``owner`` is the person who approved the route: the Runs it starts act for them.
    ``bundle`` is the published Routine the approval pinned (``{digest, routineId,
    routineVersion}``): a Run the route admits carries it, so it runs what was approved."""

    destination: str
    routine: str
    agent: str
    owner: str | None = None
    bundle: Mapping[str, Any] | None = None


class NativeRoutes:
    """The destination → Routine table over one connection."""

    __slots__ = ("conn",)

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def set(self, route: Route) -> None:
        with atomic(self.conn) as conn:
            conn.execute("DELETE FROM native_routes WHERE destination = ?", (route.destination,))
            conn.execute(
                "INSERT INTO native_routes (destination, routine, agent, owner, bundle) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    route.destination,
                    route.routine,
                    route.agent,
                    route.owner,
                    None if route.bundle is None else json.dumps(dict(route.bundle)),
                ),
            )

    def get(self, destination: str) -> Route | None:
        row = self.conn.execute(
            "SELECT routine, agent, owner, bundle FROM native_routes WHERE destination = ?",
            (destination,),
        ).fetchone()
        if row is None:
            return None
        bundle = None if row[3] is None else json.loads(row[3])
        return Route(destination, row[0], row[1], row[2], bundle)
