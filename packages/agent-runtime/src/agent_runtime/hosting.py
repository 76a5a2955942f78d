"""Hosting: who hosts a Soul's repository, and whose safety floor its Turns run under.

A Soul's repository is hosted either by the business itself (``independent``: its own git
remote, which its agents may push to) or by the platform (``platform``: the platform holds the
remote and publishes from it, so no agent pushes it). Separately, a Soul deployed on the
platform runs under the platform's safety floor: guards every hosted Soul gets, unioned with the
Soul's own, so a Soul can add guards but never fall below the floor.

Both are decided by the runtime for each Turn: the repository's host at the Tool gate (a
refused call is a denial the model sees, before any executor), the floor when the Turn's
guardrails are compiled.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import msgspec

from agent_runtime.guards.guardrails import GuardrailConfig, GuardSpec

SoulHost = Literal["independent", "platform"]
SOUL_HOSTS: tuple[SoulHost, ...] = ("independent", "platform")

REPOSITORY_TOOLS = frozenset({"soul_repo_push"})
"""Tools that act on the Soul repository's remote: only its host's own agents may call them."""

PLATFORM_FLOOR = GuardrailConfig(
    input=(GuardSpec("prompt_injection", sensitivity="medium"),),
    tool_call=(GuardSpec("tool_blocklist", block=("run_command",)),),
    output=(GuardSpec("content_filter", patterns=("credit_card", "ssn", "api_key", "email")),),
)
"""The platform's safety floor: instruction overrides screened, no shell commands, and no card
number, Social Security number, API key or email address in an answer."""


class Hosting(msgspec.Struct, frozen=True):
    """Who hosts the Soul's repository (``repository``) and whether the Soul runs on the
    platform, under its safety floor (``safety``)."""

    repository: SoulHost = "independent"
    safety: SoulHost = "independent"

    def __post_init__(self) -> None:
        for name in ("repository", "safety"):
            if getattr(self, name) not in SOUL_HOSTS:
                raise ValueError(f"{name} must be one of {list(SOUL_HOSTS)}")

    def refusal(self, tool: str) -> str | None:
        """Why the Tool gate refuses a call of ``tool`` under this hosting (``None``: it does
        not)."""
        if self.repository == "platform" and tool in REPOSITORY_TOOLS:
            return (
                f"{tool}: this Soul's repository is hosted by the platform, which publishes "
                "it; an agent may not push it"
            )
        return None

    def guardrails(self, soul: GuardrailConfig) -> GuardrailConfig:
        """The guardrails a Turn runs: the Soul's own, over the platform's floor when the Soul
        runs on the platform."""
        return floored(soul) if self.safety == "platform" else soul


INDEPENDENT = Hosting()
"""A Soul that hosts its own repository and runs off the platform: nothing changes."""


@lru_cache(maxsize=16)
def floored(soul: GuardrailConfig) -> GuardrailConfig:
    """The Soul's guardrails unioned with the platform's floor (built once per configuration,
    so the compiled guards are shared across Turns)."""
    return soul.merged(PLATFORM_FLOOR)
