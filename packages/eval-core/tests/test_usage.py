"""A Trial's spend is the sum of its model calls' usage: every one of the five counts adds up,
from the core's own record or from any record with the same counts (a runtime's usage)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from eval_core.hosts import Usage

COUNTS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
          "reasoning_tokens")  # fmt: skip
COUNT = st.integers(min_value=0, max_value=10**9)


@dataclass(frozen=True)
class _RuntimeUsage:  # a runtime's own record: the same counts, not the core's type
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int


@given(st.tuples(*[COUNT] * 5), st.tuples(*[COUNT] * 5))
def test_every_count_adds_up(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    left = Usage(**dict(zip(COUNTS, a, strict=True)))
    for right in (Usage(**dict(zip(COUNTS, b, strict=True))), _RuntimeUsage(*b)):
        total = left.plus(right)
        assert [getattr(total, c) for c in COUNTS] == [x + y for x, y in zip(a, b, strict=True)]
        assert isinstance(total, Usage)
