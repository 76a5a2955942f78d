"""The Host quietens the third-party loggers it names and no other: the MCP SDK's session
records (on its ``client`` logger) are counted and never reach a handler of the process, while
the team's own records still reach whatever handlers the team configured."""

from __future__ import annotations

import logging

from eval_host_langgraph.quiet import dropped, quiet


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.name}: {record.getMessage()}")


def test_the_sdks_session_records_are_counted_and_the_teams_own_still_reach_its_handler() -> None:
    quiet()
    before = dropped()
    kept = _Kept()
    root = logging.getLogger()
    root.addHandler(kept)
    try:
        logging.getLogger("client").warning("Failed to validate notification")
        logging.getLogger("team_desk.routing").warning("queue 'billing' is over its SLA")
    finally:
        root.removeHandler(kept)
    after = dropped()
    assert after.get("client", 0) == before.get("client", 0) + 1
    assert "team_desk.routing" not in after
    assert kept.messages == ["team_desk.routing: queue 'billing' is over its SLA"]
