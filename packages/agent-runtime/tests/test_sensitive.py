"""The content filter's patterns: each finds its data and leaves look-alikes alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent_runtime.guards.guardrails import OUTPUT_REFUSAL, GuardrailConfig, Guardrails
from agent_runtime.guards.sensitive import find_api_keys, find_emails, find_ssns

FOUND: list[tuple[Callable[[str], list[str]], str, list[str]]] = [
    (find_ssns, "SSN 219-09-9999 on file", ["219-09-9999"]),
    (find_ssns, "order 219-09-99991 shipped", []),  # too many digits
    (find_ssns, "000-12-3456 666-12-3456 900-12-3456", []),  # never-assigned areas
    (find_ssns, "123-00-4567 123-45-0000", []),  # group 00, serial 0000
    (find_ssns, "call 555-0142 or 0031-20-1234", []),
    (find_ssns, "219099999", []),  # undashed: an order id, not an SSN
    (find_emails, "write to anna.devries@example.nl today", ["anna.devries@example.nl"]),
    (find_emails, "<ops+alerts@tulip-farm.co.uk>", ["ops+alerts@tulip-farm.co.uk"]),
    (find_emails, "the handle @tulipfarm and user@localhost", []),
    (find_emails, "a@b.c is too short a domain", []),
    (
        find_api_keys,
        "token xoxb-2219047713-5830416629-Qm7TzKp4",
        ["xoxb-2219047713-5830416629-Qm7TzKp4"],
    ),
    (find_api_keys, "key=sk-proj-abcdEFGH1234ijklMNOP5678", ["sk-proj-abcdEFGH1234ijklMNOP5678"]),
    (find_api_keys, "AKIAIOSFODNN7EXAMPLE in the config", ["AKIAIOSFODNN7EXAMPLE"]),
    (find_api_keys, "ghp_" + "a" * 36, ["ghp_" + "a" * 36]),
    (find_api_keys, "ticket T-7188, order sk-12, task-force-alpha", []),
    (find_api_keys, "sk-short", []),
]
"""Each pattern's finder, a text, and exactly what it finds there."""


@pytest.mark.parametrize(("finder", "text", "found"), FOUND)
def test_each_pattern_finds_its_data_and_nothing_else(
    finder: Callable[[str], list[str]], text: str, found: list[str]
) -> None:
    assert finder(text) == found


def test_a_filter_refuses_what_its_patterns_find_and_names_it() -> None:
    config = GuardrailConfig.parse(
        {"output": [{"guard": "content_filter", "patterns": ["ssn", "email"]}]}
    )
    guards = Guardrails(config)
    [decision] = guards.check_output("Anna (219-09-9999) is anna@example.nl")
    assert decision.blocked
    assert decision.detail == (
        "1 Social Security number(s) ending 9999; 1 email address(es) at example.nl"
    )
    assert decision.refusal == OUTPUT_REFUSAL == "The response was blocked by a content guardrail."
    assert decision.reason == "content_filter:ssn"  # the original's code: the first pattern found
    [card] = guards.check_output("card 4111 1111 1111 1111")  # not a pattern of this filter
    assert not card.blocked and card.refusal is None


def test_an_unknown_pattern_is_refused_when_the_configuration_loads() -> None:
    with pytest.raises(ValueError, match=r"unknown content pattern\(s\) \['iban'\]"):
        GuardrailConfig.parse({"output": [{"guard": "content_filter", "patterns": ["iban"]}]})
