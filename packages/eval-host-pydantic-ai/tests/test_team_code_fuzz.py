"""Fuzz target for the team-code boundary (issue 45, class 3): generated hostile behaviour of a
team's Tools through the pydantic-ai Host and the real ``eval``.

Each example is a team project whose Tools (one sync, one async) do what a generated
behaviour says: ``sys.exit(n)`` for any ``n``, ``os._exit(n)``, raise any ``BaseException``
subclass (``KeyboardInterrupt``, ``GeneratorExit``, ``CancelledError``, ``SystemExit`` and
custom ones), sleep past the deadline, spin, block the event loop, leak a non-daemon thread,
return a huge value, flood stdout or stderr. Whatever they do: ``eval``'s exit code is the one
its Trials compute (never the team's), a Trial the team's code ended errors in one line, the
Scorecard on stdout is whole, stderr holds no traceback, nothing is left running and the
command ends within its bound. Few, small examples: each is one whole Sweep.
"""

from __future__ import annotations

from hypothesis import given, settings

from hostile_team import DO, Behaviour, behaviours, fuzz_target

APP = (
    """
import asyncio, json, os, sys, threading, time
from pydantic_ai import Agent
"""
    + DO
    + '''
def act(how: str) -> str:
    """Do what the Case asks."""
    return _do(json.loads(how))

async def act_async(how: str) -> str:
    """Do what the Case asks, on the event loop (a sleep there blocks it)."""
    return _do(json.loads(how))

AGENTS = {"probe": Agent(name="probe", instructions="Probe.", tools=[act, act_async])}
'''
)


test_the_teams_code_never_ends_hangs_or_forges_the_sweep = fuzz_target(APP, "pydantic-ai", 3)


def test_the_strategy_draws_every_behaviour() -> None:
    """The target can reach each behaviour (a strategy that never drew one tests nothing)."""
    seen: set[str] = set()

    @settings(max_examples=300, deadline=None)
    @given(behaviours())
    def draw(cases: list[Behaviour]) -> None:
        seen.update(b.what for b in cases)

    draw()
    assert seen == {
        "exit",
        "os_exit",
        "raise",
        "sleep",
        "spin",
        "thread",
        "huge",
        "flood",
        "ok",
    }
