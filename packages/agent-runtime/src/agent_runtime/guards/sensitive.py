"""Sensitive data in free text: what the output ``content_filter`` can be configured to refuse.

Each pattern has a finder that returns what it found and a label the refusal names. A finder
errs on the side of structure over guessing: a card number must pass Luhn, a Social Security
number must be dashed and in an assigned range, an API key must carry a vendor's published
prefix, so an order id, a phone number or a ticket reference never trips the filter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from agent_runtime.guards.cards import find_card_numbers

_SOURCES: Mapping[str, str] = MappingProxyType(
    {
        "ssn": r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])",
        "email": (
            r"(?<![\w.+%-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
            r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}"
            r"[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![\w-])"
        ),
        "api_key": (
            r"(?<![\w-])(?:"
            r"sk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]{20,}"  # OpenAI, Anthropic
            r"|(?:sk|rk)_live_[A-Za-z0-9]{24,}"  # Stripe secret and restricted keys
            r"|gh[pousr]_[A-Za-z0-9]{36,}"  # GitHub tokens
            r"|github_pat_[A-Za-z0-9_]{22,}"  # GitHub fine-grained tokens
            r"|(?:AKIA|ASIA)[0-9A-Z]{16}"  # AWS access key ids
            r"|xox[abposr]-[A-Za-z0-9-]{10,}"  # Slack tokens
            r"|AIza[0-9A-Za-z_-]{35}"  # Google API keys
            r")(?![\w-])"
        ),
    }
)


@cache
def _regex(name: str) -> re.Pattern[str]:
    """A finder's pattern, compiled on its first use: a Soul filters only what it names."""
    return re.compile(_SOURCES[name])


def find_ssns(text: str) -> list[str]:
    """US Social Security numbers written ``AAA-GG-SSSS`` in an assigned range."""
    return _regex("ssn").findall(text)


def find_emails(text: str) -> list[str]:
    """Email addresses (``local@domain.tld``)."""
    return _regex("email").findall(text)


def find_api_keys(text: str) -> list[str]:
    """API keys and tokens in a vendor's published, prefixed format."""
    return _regex("api_key").findall(text)


@dataclass(frozen=True, slots=True)
class Pattern:
    """One kind of sensitive data: how to find it, how a refusal names it, how a decision's
    detail shows what was found without repeating it."""

    find: Callable[[str], list[str]]
    label: str
    shown: Callable[[str], str]


def _tail(found: str) -> str:
    return f"ending {found[-4:]}"


def _domain(found: str) -> str:
    return f"at {found.rsplit('@', 1)[-1]}"


def _prefix(found: str) -> str:
    return f"{found[:4]}… ({len(found)} chars)"


PATTERNS: Mapping[str, Pattern] = MappingProxyType(
    {
        "credit_card": Pattern(find_card_numbers, "a payment card number", _tail),
        "ssn": Pattern(find_ssns, "a Social Security number", _tail),
        "api_key": Pattern(find_api_keys, "an API key", _prefix),
        "email": Pattern(find_emails, "an email address", _domain),
    }
)
"""The patterns a ``content_filter`` may name, by name."""
