"""Spend and ceilings: priced from the pins against the usage the server reported.

A ceiling is checked before each Trial, so a Sweep overruns it by at most one Trial; a stopped
Sweep says why and how many Trials never ran, and never clears.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from eval_bindings.endpoint import EndpointBinding
from eval_bindings.spend import Ceiling, CeilingError, settle
from eval_core._loading.corpus import Corpus
from eval_core._plugins.plugins import load_plugins
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import not_cleared
from eval_core._sweeping.render import render_text


def reply(tokens: tuple[int, int], cached: int = 0) -> dict[str, Any]:
    usage: dict[str, Any] = {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]}
    if cached:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return {
        "model": "served-model-v7",
        "choices": [{"message": {"role": "assistant", "content": "ok"}}],
        "usage": usage,
    }


def corpus(kit: Any, n: int) -> Corpus:
    return Corpus(
        directory=Path("corpus"),
        suite="capability",
        cases=tuple(kit.make_case(f"c{i}") for i in range(1, n + 1)),
        hash="0" * 64,
        soul_dir=Path("soul"),
        soul_hash="0" * 64,
        plugins=(),
        judge="no-judge",
    )


def sweep(kit: Any, host: Any, url: str, n: int, ceiling: Ceiling, **pin: Any) -> Any:
    p = kit.pin("openai", url, **pin)
    binding = EndpointBinding(p, kit.FAKE_KEY, base_delay=0.001)
    card = run_sweep(corpus(kit, n), host, binding, load_plugins(), should_stop=ceiling.guard(p))
    settle(card, p)
    card.model_dated = p.dated
    return card


UNPRICED: dict[str, Any] = {"price_input_per_mtok": None, "price_output_per_mtok": None}
"""A pin with no prices: its calls count, their cost is unknown."""


def test_the_spend_line_matches_the_servers_usage(vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=reply((1000, 200), cached=400)))
    card = sweep(kit, loop_host, server.url, 3, Ceiling(max_tokens=1_000_000), dated=False)
    # price: 3 calls x (1000 in x $1 + 200 out x $2) per million tokens
    assert math.isclose(card.spend.cost_usd, 3 * (1000 * 1.0 + 200 * 2.0) / 1e6)
    assert (card.spend.calls, card.spend.input_tokens, card.spend.output_tokens) == (3, 3000, 600)
    text = render_text(card)
    assert "Spend  $0.0042  3 calls  3000 in (1200 cached)  600 out\n" in text
    assert "NOTE  test-openai is pinned to an undated model id" in text


def test_unpriced_calls_make_the_total_a_floor(vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=reply((10, 5))))
    card = sweep(kit, loop_host, server.url, 2, Ceiling(max_tokens=10_000), **UNPRICED)
    assert card.spend.unpriced == 2
    assert "Spend  $0.0000+  2 calls  20 in  10 out  2 unpriced" in render_text(card)


def test_a_token_ceiling_stops_within_one_trial(vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=reply((100, 50))))
    card = sweep(kit, loop_host, server.url, 10, Ceiling(max_tokens=400))
    # 150 tokens per Trial: after 3 Trials 450 >= 400, so the 4th never starts
    assert len(card.trials) == 3 and card.skipped == 7
    used = card.spend.input_tokens + card.spend.output_tokens
    assert used - 150 < 400 <= used  # overrun by at most one Trial
    assert card.aborted_reason == "token ceiling reached: 450 of 400 tokens after 3 of 10 Trials"
    assert any("stopped early" in r for r in not_cleared(card))
    assert "ABORTED  token ceiling reached" in render_text(card)


def test_a_dollar_ceiling_stops_within_one_trial(vendor: Any, kit: Any, loop_host: Any) -> None:
    server = vendor(kit.Reply(body=reply((100_000, 0))))  # $0.10 a Trial at $1/Mtok
    card = sweep(kit, loop_host, server.url, 10, Ceiling(max_tokens=10**9, max_spend_usd=0.25))
    assert len(card.trials) == 3
    assert card.aborted_reason is not None and card.aborted_reason.startswith(
        "spend ceiling reached"
    )


def test_a_dollar_ceiling_with_unpriced_calls_and_no_token_ceiling_stops(
    vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(kit.Reply(body=reply((10, 5))))
    card = sweep(kit, loop_host, server.url, 5, Ceiling(max_spend_usd=1.0), **UNPRICED)
    assert len(card.trials) == 1
    assert "cannot be checked" in (card.aborted_reason or "")


def test_model_version_is_the_vendors_when_it_differs(
    vendor: Any, kit: Any, loop_host: Any
) -> None:
    server = vendor(kit.Reply(body=reply((1, 1))))
    card = sweep(kit, loop_host, server.url, 1, Ceiling(max_tokens=100))
    assert card.trials[0].model_version == "served-model-v7"


@pytest.mark.parametrize(
    ("flags", "why"),
    [
        ({"max_tokens": 10, "max_tokens_per_trial": 10}, "mutually exclusive"),
        ({"max_tokens": 0}, "--max-tokens must be a finite number > 0"),
        ({"max_tokens_per_trial": -5}, "--max-tokens-per-trial must be"),
        ({"max_spend": float("nan")}, "--max-spend must be"),
        ({"max_spend": float("inf")}, "--max-spend must be"),
        ({"max_spend": 1e-320}, "--max-spend 1e-320 is subnormal"),
    ],
)
def test_bad_ceilings_are_refused(flags: dict[str, Any], why: str) -> None:
    values = {"max_tokens": None, "max_tokens_per_trial": None, "max_spend": None, **flags}
    with pytest.raises(CeilingError, match=why):
        Ceiling.from_flags(planned=4, **values)


def test_per_trial_tokens_multiply_by_the_trials_planned() -> None:
    ceiling = Ceiling.from_flags(
        max_tokens=None, max_tokens_per_trial=1500, max_spend=2.0, planned=4
    )
    assert (ceiling.max_tokens, ceiling.max_spend_usd) == (6000, 2.0)
