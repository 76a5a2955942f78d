"""Model pins: the checked-in declaration of every model a Sweep may run against.

A pin fixes everything that changes what a Sweep of a real model measures or costs: the wire
format, the model id, the endpoint, where the credential comes from (``env://NAME`` and nowhere
else, so a key is never written into a file), the effort, whether the id is dated (an undated
alias can move under us), the prices, and the per-pin switches of each request
(:mod:`eval_bindings.wire.options`: ``tool_choice``, ``temperature``, ``seed``...). Refusals name
the file, the key path and the reason.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from eval_bindings import endpoints
from eval_bindings.wire.options import CHOICES, DEFAULT, RequestOptions, ToolChoice
from eval_core.hosts import NotReadable, read_regular

Wire = Literal["openai", "anthropic"]
NAME = re.compile(r"^[a-zA-Z0-9._-]+\Z")
_ENV_REF = re.compile(r"^env://([A-Za-z_][A-Za-z0-9_]*)\Z")
_KNOWN = frozenset(
    {
        "wire",
        "model",
        "base_url",
        "credential",
        "effort",
        "dated",
        "price_input_per_mtok",
        "price_output_per_mtok",
        "max_output_tokens",
        "timeout_s",
        "trial_timeout_s",
        "max_concurrency",
        "max_response_bytes",
        "tool_choice",
        "tool_choice_after_result",
        "parallel_tool_calls",
        "temperature",
        "seed",
    }
)
MAX_SEED = 2**63 - 1


class PinError(Exception):
    """A models file that cannot be used: the message names file, key path and reason."""


@dataclass(frozen=True, slots=True)
class ModelPin:
    name: str
    wire: Wire
    model: str
    base_url: str
    credential_env: str
    dated: bool
    effort: str | None = None
    price_input_per_mtok: float | None = None
    price_output_per_mtok: float | None = None
    max_output_tokens: int = 4096
    timeout_s: float = 120.0
    trial_timeout_s: float | None = None
    max_concurrency: int = 1
    max_response_bytes: int = 8 * 1024 * 1024
    options: RequestOptions = DEFAULT

    @property
    def priced(self) -> bool:
        return self.price_input_per_mtok is not None and self.price_output_per_mtok is not None


MAX_MODELS_BYTES = 4 << 20
"""A models file past this is refused unread (a few hundred pins are a few tens of KB)."""


def load_pins(path: Path) -> dict[str, ModelPin]:
    """Every pin in the file, by name; refuses the whole file on the first problem found."""
    try:  # the bounded reader: a FIFO never blocks, a huge file is refused by its size
        raw = tomllib.loads(read_regular(path, MAX_MODELS_BYTES).decode("utf-8"))
    except NotReadable as exc:
        if str(exc) == "no such file":
            raise PinError(f"{path}: no such models file") from None
        raise PinError(f"{path}: cannot be read: {exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PinError(f"{path}: cannot be read as TOML: {exc}") from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise PinError(f"{path}: $: arrays or inline tables nested too deeply to read") from None
    models = raw.get("models")
    if not isinstance(models, dict) or not models:
        raise PinError(f"{path}: models: expected at least one [models.<name>] table")
    return {name: _pin(path, name, table) for name, table in models.items()}


def select_pin(path: Path, name: str) -> ModelPin:
    pins = load_pins(path)
    pin = pins.get(name)
    if pin is None:
        raise PinError(f"{path}: no model {name!r}; pinned: {', '.join(sorted(pins))}")
    return pin


def _pin(path: Path, name: str, table: Any) -> ModelPin:
    where = f"models.{name}"

    def refuse(key: str, reason: str) -> PinError:
        return PinError(f"{path}: {where}{'.' + key if key else ''}: {reason}")

    if not NAME.match(name):
        raise refuse("", "a model name may use only letters, digits, '.', '_' and '-'")
    if not isinstance(table, dict):
        raise refuse("", "expected a table")
    unknown = sorted(set(table) - _KNOWN)
    if unknown:
        raise refuse(unknown[0], f"unknown key (known: {', '.join(sorted(_KNOWN))})")

    def text(key: str, required: bool = True) -> str | None:
        value = table.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value.strip():
            raise refuse(key, "required, a non-empty string")
        return value

    wire = text("wire")
    wires: dict[str | None, Wire] = {"openai": "openai", "anthropic": "anthropic"}
    if wire not in wires:
        raise refuse("wire", f"must be 'openai' or 'anthropic', not {wire!r}")
    model = text("model")
    base_url = text("base_url")
    assert model is not None and base_url is not None
    try:
        endpoints.parse(base_url)
    except endpoints.EndpointError as bad:
        raise refuse("base_url", f"{base_url!r} {bad}") from None
    credential = text("credential")
    assert credential is not None
    ref = _ENV_REF.match(credential)
    if ref is None:
        raise refuse(
            "credential",
            "must be env://NAME (the environment variable holding the key); "
            "a key is never written into the models file",
        )
    dated = table.get("dated")
    if not isinstance(dated, bool):
        raise refuse("dated", "required, true or false (is the model id a dated snapshot?)")
    prices = [
        _price(table, key, refuse) for key in ("price_input_per_mtok", "price_output_per_mtok")
    ]
    if (prices[0] is None) != (prices[1] is None):
        raise refuse("price_output_per_mtok", "set both prices or neither (unpriced)")
    max_out = table.get("max_output_tokens", 4096)
    if isinstance(max_out, bool) or not isinstance(max_out, int) or max_out <= 0:
        raise refuse("max_output_tokens", "must be an integer > 0")
    concurrency = table.get("max_concurrency", 1)
    if (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, int)
        or not 1 <= concurrency <= 256
    ):
        raise refuse("max_concurrency", "must be an integer from 1 to 256 (Trials at once)")
    most = table.get("max_response_bytes", 8 * 1024 * 1024)
    if isinstance(most, bool) or not isinstance(most, int) or not 1024 <= most <= 1 << 30:
        raise refuse("max_response_bytes", "must be an integer from 1024 to 1073741824")
    timeout = table.get("timeout_s", 120.0)
    if not _finite(timeout) or timeout <= 0:
        raise refuse("timeout_s", "must be a finite number of seconds > 0")
    bound = table.get("trial_timeout_s")
    if bound is not None and (not _finite(bound) or bound <= 0):
        raise refuse("trial_timeout_s", "must be a finite number of seconds > 0")
    options = _options(table, wires[wire], refuse)
    return ModelPin(
        name=name,
        wire=wires[wire],
        model=model,
        base_url=base_url.rstrip("/"),
        credential_env=ref.group(1),
        dated=dated,
        effort=text("effort", required=False),
        price_input_per_mtok=prices[0],
        price_output_per_mtok=prices[1],
        max_output_tokens=max_out,
        timeout_s=float(timeout),
        trial_timeout_s=None if bound is None else float(bound),
        max_concurrency=concurrency,
        max_response_bytes=most,
        options=options,
    )


def _options(table: dict[str, Any], wire: Wire, refuse: Any) -> RequestOptions:
    def choice(key: str) -> ToolChoice | None:
        value = table.get(key)
        if value is None:
            return None
        for known in CHOICES:
            if value == known:
                return known
        raise refuse(key, f"must be one of {', '.join(map(repr, CHOICES))}, not {value!r}")

    parallel = table.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        raise refuse("parallel_tool_calls", "must be true or false")
    temperature = table.get("temperature")
    if temperature is not None and (not _finite(temperature) or not 0 <= temperature <= 2):
        raise refuse("temperature", "must be a number from 0 to 2")
    if temperature is not None and wire == "anthropic" and temperature > 1:
        raise refuse("temperature", "the anthropic wire takes a temperature from 0 to 1")
    seed = table.get("seed")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise refuse("seed", f"must be an integer from 0 to {MAX_SEED}")
        if wire == "anthropic":
            raise refuse("seed", "the anthropic wire has no seed (Messages takes none)")
    return RequestOptions(
        tool_choice=choice("tool_choice") or "auto",
        tool_choice_after_result=choice("tool_choice_after_result"),
        parallel_tool_calls=parallel,
        temperature=None if temperature is None else float(temperature),
        seed=seed,
    )


def _price(table: dict[str, Any], key: str, refuse: Any) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if not _finite(value):
        raise refuse(key, "must be a finite number of US dollars per million tokens")
    if value < 0:
        raise refuse(key, "must not be negative")
    return float(value)


def _finite(value: Any) -> bool:
    """A finite number as TOML gives one (``true`` is no number, ``nan`` and ``inf`` no bound)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)
