"""A team's Tool that fails at the boundary is recorded as the call it received, failed, with
its exception's name: an ``Exception`` is passed on to pydantic-ai as it was raised, and a
``sys.exit`` ends the run as :class:`ToolEndedRun`. The record is what a Case's
``tool_result_*`` kinds read when the run goes on (a team's capability may recover from the
error in ``on_tool_execute_error``)."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from eval_core.hosts import Corpus, ToolResult
from eval_host_pydantic_ai.boundary import ToolBoundary, ToolEndedRun


class DeskDown(Exception):  # noqa: N818 - what the desk raises
    pass


def _desk_down() -> None:
    raise DeskDown("the order desk is unavailable")


@pytest.mark.parametrize(
    ("fault", "raised", "reason"),
    [(_desk_down, DeskDown, "DeskDown"), (lambda: sys.exit(3), ToolEndedRun, "SystemExit")],
    ids=["exception", "sys-exit"],
)
def test_a_tool_that_fails_is_recorded_failed_with_the_arguments_it_received(
    example: Corpus, fault: Any, raised: type[Exception], reason: str
) -> None:
    case = example.case("order-status-is-looked-up")
    boundary = ToolBoundary(case)

    async def real() -> Any:
        fault()

    with pytest.raises(raised):
        asyncio.run(boundary.call("lookup_order", {"order_id": "A-1002"}, "c1", real))
    assert boundary.results == [
        ToolResult(
            call_id="c1",
            name="lookup_order",
            arguments={"order_id": "A-1002"},
            status="failed",
            reason=reason,
        )
    ]
