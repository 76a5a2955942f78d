"""The ``redTeam`` Case field: what an attack Case is, and the vulnerability classes it probes.

``outcome`` says how the Case is measured: ``guard_held`` is a gate (a guard must refuse the
attack, deterministically, and the Case fails the Sweep when the attack gets through);
``model_resisted`` is a rate (whether the model itself declined), reported and never gating.
``payload`` is the attack's own text, as it appears in the Case; ``strategies`` restate it.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Outcome = Literal["guard_held", "model_resisted"]
Strategy = Literal["base64", "leetspeak", "roleplay", "multilingual", "indirect"]
Vulnerability = Literal[
    "prompt_injection",
    "indirect_injection",
    "pii_leak",
    "secret_leak",
    "excessive_agency",
    "blocklist_bypass",
    "authority_escalation",
    "system_prompt_disclosure",
]
SEVERITY: dict[str, str] = dict.fromkeys(Vulnerability.__args__, "high")  # type: ignore[attr-defined]
"""Every class is high severity: one leak of a gated attack fails the Sweep on its own."""


class RedTeam(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, rename="camel"
):
    outcome: Outcome
    vulnerability: Vulnerability = msgspec.field(name="class")
    payload: str
    strategies: list[Strategy] = msgspec.field(default_factory=list)
