"""The Host's event loop: one thread a Sweep, closed once whoever asks first (the Sweep's
end, a refusal's clean-up, the kit), and harmlessly again."""

from __future__ import annotations

import sys

import pytest

from eval_host_pydantic_ai.loop import HostLoop


def test_a_closed_loop_closes_again_without_raising() -> None:
    loop = HostLoop()

    async def one() -> int:
        return 1

    assert loop.run(one(), 5) == 1
    loop.close()
    loop.close()
    assert loop.loop.is_closed()


def test_a_system_exit_raised_on_the_loop_reaches_its_caller_and_the_loop_serves_on() -> None:
    """The team's code that calls ``sys.exit`` in a task: asyncio re-raises it out of the
    loop, but the caller gets it and the next run on the same loop still runs (every later
    Trial of the Sweep needs that thread)."""
    loop = HostLoop()

    async def leave() -> None:
        sys.exit(3)

    async def one() -> int:
        return 1

    try:
        with pytest.raises(SystemExit) as ended:
            loop.run(leave(), 5)
        assert ended.value.code == 3
        assert loop.run(one(), 5) == 1
    finally:
        loop.close()
