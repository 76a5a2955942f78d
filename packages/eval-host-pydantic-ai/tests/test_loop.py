"""The Host's event loop: one thread a Sweep, closed once whoever asks first (the Sweep's
end, a refusal's clean-up, the kit), and harmlessly again."""

from __future__ import annotations

from eval_host_pydantic_ai.loop import HostLoop


def test_a_closed_loop_closes_again_without_raising() -> None:
    loop = HostLoop()

    async def one() -> int:
        return 1

    assert loop.run(one(), 5) == 1
    loop.close()
    loop.close()
    assert loop.loop.is_closed()
