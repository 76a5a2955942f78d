"""Spend: what a Sweep cost, and the ceilings that stop it before it costs more.

Prices come from the model's pin. A call the pin cannot price (no prices, or the vendor reported
no usage for it) is counted apart as unpriced, and the total is then only a floor (``$x+``).
Ceilings are checked before each Trial is launched, so a Sweep overruns by at most one Trial
(by the N-1 Trials in flight with ``--jobs N``); a dollar ceiling that cannot be checked
(unpriced calls, no token ceiling to fall back on) stops it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from eval_bindings.pins import ModelPin
from eval_core.hosts import TrialResult, Usage
from eval_core.records import Scorecard


class CeilingError(Exception):
    """A ceiling that is not a finite number > 0, or two token ceilings at once."""


def cost_usd(pin: ModelPin | None, usage: Usage) -> float | None:
    """The dollar cost of ``usage`` at the pin's prices; ``None`` when unpriced."""
    if pin is None or not pin.priced:
        return None
    assert pin.price_input_per_mtok is not None and pin.price_output_per_mtok is not None
    return (
        usage.input_tokens * pin.price_input_per_mtok
        + usage.output_tokens * pin.price_output_per_mtok
    ) / 1_000_000


def price(trials: Sequence[TrialResult], pin: ModelPin | None) -> tuple[float, int]:
    """``(cost_usd, unpriced_calls)`` of the Trials: the one place a Sweep is priced."""
    total, unpriced = 0.0, 0
    for trial in trials:
        cost = cost_usd(pin, trial.usage)
        if cost is None:
            unpriced += trial.model_calls
            continue
        total += cost
        if (trial.error or "").startswith("model_usage_missing"):
            unpriced += 1  # its last call went unreported: the total is only a floor
    return total, unpriced


def settle(card: Scorecard, pin: ModelPin | None) -> None:
    """Write the priced total into the Scorecard's Spend (scripted Trials cost nothing)."""
    if card.binding == "scripted":
        return
    card.spend.cost_usd, card.spend.unpriced = price(card.trials, pin)


def positive(flag: str, value: float | None) -> None:
    if value is not None and (not math.isfinite(value) or value <= 0):
        raise CeilingError(f"{flag} must be a finite number > 0, not {value!r}")
    if isinstance(value, float) and value < sys.float_info.min:  # subnormal (1e-320)
        raise CeilingError(
            f"{flag} {value!r} is subnormal (below {sys.float_info.min!r}): "
            "not a ceiling a spend can be compared with; give a normal number > 0"
        )


@dataclass(frozen=True, slots=True)
class Ceiling:
    """The Sweep's ceilings: total tokens (input + output) and dollars."""

    max_tokens: int | None = None
    max_spend_usd: float | None = None

    @classmethod
    def from_flags(
        cls,
        *,
        max_tokens: int | None,
        max_tokens_per_trial: int | None,
        max_spend: float | None,
        planned: int,
    ) -> Ceiling:
        if max_tokens is not None and max_tokens_per_trial is not None:
            raise CeilingError("--max-tokens and --max-tokens-per-trial are mutually exclusive")
        positive("--max-tokens", max_tokens)
        positive("--max-tokens-per-trial", max_tokens_per_trial)
        positive("--max-spend", max_spend)
        tokens = max_tokens
        if max_tokens_per_trial is not None:
            tokens = max_tokens_per_trial * max(1, planned)
        return cls(max_tokens=tokens, max_spend_usd=max_spend)

    @property
    def has_tokens(self) -> bool:
        return self.max_tokens is not None

    def reached(self, trials: Sequence[TrialResult], pin: ModelPin | None) -> str | None:
        """Why the next Trial must not start, or ``None``."""
        if self.max_spend_usd is not None:
            cost, unpriced = price(trials, pin)
            if cost >= self.max_spend_usd:
                return f"spend ceiling reached: ${cost:.4f} of ${self.max_spend_usd:g}"
            if unpriced and self.max_tokens is None:
                return (
                    f"spend ceiling cannot be checked: {unpriced} unpriced call(s) and no "
                    "token ceiling"
                )
        if self.max_tokens is not None:
            used = sum(t.usage.input_tokens + t.usage.output_tokens for t in trials)
            if used >= self.max_tokens:
                return f"token ceiling reached: {used} of {self.max_tokens} tokens"
        return None

    def guard(self, pin: ModelPin | None) -> _Guard:
        return _Guard(self, pin)


@dataclass(frozen=True, slots=True)
class _Guard:
    """The ``should_stop`` callable the core's Sweep runner checks before each Trial."""

    ceiling: Ceiling
    pin: ModelPin | None

    def __call__(self, card: Scorecard) -> str | None:
        return self.ceiling.reached(card.trials, self.pin)
