"""Pinned models as the core's model source: a leg per ``--model`` name, and the Judge.

A leg is one pin of the models file, past its preflight (no base-URL override in the
environment, a credential that looks like a key). It opens its endpoint binding when the leg
starts, stops the Sweep at its ceiling before a Trial, and settles the priced spend and what the
model was into the Scorecard.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from eval_core.hosts import Ceilings, ModelLeg, ModelRefused, ModelUnavailable

if TYPE_CHECKING:  # all of it is imported when a model is asked for, never for a scripted Sweep
    from eval_bindings.endpoint import EndpointBinding
    from eval_bindings.judge_client import JudgeClient
    from eval_bindings.pins import ModelPin
    from eval_bindings.spend import Ceiling
    from eval_core.records import Scorecard


class PinnedLeg:
    """One pinned model of a Sweep (:class:`eval_core.hosts.ModelLeg`)."""

    def __init__(self, pin: ModelPin, api_key: str) -> None:
        from eval_bindings.spend import Ceiling

        self.pin = pin
        self._api_key = api_key
        self._binding: EndpointBinding | None = None
        self._ceiling: Ceiling = Ceiling()
        self._planned = 0

    @property
    def secrets(self) -> Sequence[str]:
        return (self._api_key,)

    def start(self, ceilings: Ceilings, planned: int) -> EndpointBinding:
        from eval_bindings.spend import Ceiling, CeilingError

        try:
            self._ceiling = Ceiling.from_flags(
                max_tokens=ceilings.max_tokens,
                max_tokens_per_trial=ceilings.max_tokens_per_trial,
                max_spend=ceilings.max_spend,
                planned=planned,
            )
        except CeilingError as exc:
            raise ModelRefused(str(exc)) from None
        self._planned = planned
        self._listed()
        from eval_bindings.endpoint import EndpointBinding

        self._binding = EndpointBinding(self.pin, self._api_key)
        return self._binding

    def _listed(self) -> None:
        """A model the pin's server does not list is refused before the first Trial."""
        from eval_bindings import listing

        pin = self.pin
        served = listing.groups(pin.base_url, pin.wire, self._api_key)
        if served is None or listing.names_of(pin.model, served) is not None:
            return
        known = ", ".join(sorted(min(names) for names in served)[:8]) or "none"
        raise ModelRefused(
            f"preflight refused: models.{pin.name}.model: {pin.model!r} is not served at "
            f"{pin.base_url} (its /models lists: {known})"
        )

    @property
    def concurrency(self) -> int:
        return self.pin.max_concurrency

    def describe(self) -> str:
        pin, ceiling = self.pin, self._ceiling
        spend = f", ${ceiling.max_spend_usd:g}" if ceiling.max_spend_usd is not None else ""
        return (
            f"model={pin.name} ({pin.wire} {pin.model})  {self._planned} Trials planned  "
            f"ceiling {ceiling.max_tokens} tokens{spend}"
        )

    def should_stop(self, card: Scorecard) -> str | None:
        return self._ceiling.reached(card.trials, self.pin)

    def settle(self, card: Scorecard) -> None:
        from eval_bindings.spend import settle

        settle(card, self.pin)
        card.model_dated = self.pin.dated
        card.effort = self.pin.effort
        card.temperature = self.pin.options.temperature
        card.seed = self.pin.options.seed
        card.request_options = self.pin.options.describe()
        card.model_version = next((t.model_version for t in card.trials if t.model_version), None)

    def close(self) -> None:
        if self._binding is not None:
            self._binding.close()
            self._binding = None

    def __repr__(self) -> str:  # never the key
        return f"PinnedLeg({self.pin.name!r})"


class PinnedModels:
    """The model source of ``eval-bindings`` (:class:`eval_core.hosts.ModelSource`)."""

    def open_leg(self, models_file: Path, name: str) -> PinnedLeg:
        from eval_bindings import preflight
        from eval_bindings.pins import PinError, select_pin

        try:
            pin = select_pin(models_file, name)
        except PinError as exc:
            raise ModelRefused(f"models refused: {exc}") from None
        try:
            preflight.no_overrides()
            api_key = preflight.credential(pin.credential_env)
        except preflight.PreflightError as exc:
            raise ModelUnavailable(f"preflight refused: {exc}") from None
        return PinnedLeg(pin, api_key)

    def judge(self, legs: Sequence[ModelLeg], warn: Callable[[str], None]) -> JudgeClient | None:
        from eval_bindings import preflight

        pins = [leg.pin for leg in legs if isinstance(leg, PinnedLeg)]
        try:
            config = preflight.judge(pins)
        except preflight.PreflightError as exc:
            raise ModelRefused(f"preflight refused: {exc}") from None
        if config is None:
            return None
        if config.shares_model_under_test:
            warn(
                f"WARN  {preflight.JUDGE_SHARE_OPT_IN}=1: the Judge is the model under test "
                "(smoke tests only; such a Sweep measures nothing a release can rely on)"
            )
        from eval_bindings.judge_client import JudgeClient

        return JudgeClient(config)
