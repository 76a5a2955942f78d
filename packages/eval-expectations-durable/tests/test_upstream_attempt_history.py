"""Issue 21, section 7: ``attemptHistory``, an earlier pass of the Turn's attempt."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from eval_core._plugins.fixtures import FixtureError
from eval_expectations_durable.faults import (
    AttemptHistory,
    PriorAttempts,
    eval_case_fields,
    eval_fixtures,
)


class Port:
    def __init__(self) -> None:
        self.seeded: list[tuple[str, list[tuple[str, str, str]]]] = []

    def seed(self, text: str, tool_calls: list[tuple[str, str, str]]) -> None:
        self.seeded.append((text, tool_calls))


class Request:
    def __init__(self, value: Any, port: Port) -> None:
        self.value = value
        self.port = port

    def service(self, protocol: type) -> Port:
        assert protocol is PriorAttempts
        return self.port


FIXTURE = next(f for f in eval_fixtures() if f.field == "attempt_history")


def test_the_field_decodes_the_originals_spelling() -> None:
    [field] = [f for f in eval_case_fields() if f.name == "attempt_history"]
    assert field.tiers == frozenset({"l3"})
    raw = (
        b'{"text": "Shipped.", "toolCalls": [{"callId": "c1", "name": "lookup", "outcome": "ok"}]}'
    )
    history = msgspec.json.decode(raw, type=AttemptHistory)
    assert history.tool_calls[0].call_id == "c1" and history.text == "Shipped."
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            b'{"toolCalls": [{"callId": "c1", "name": "x", "outcome": "maybe"}]}',
            type=AttemptHistory,
        )


def test_the_fixture_seeds_the_hosts_prior_attempt_port() -> None:
    port = Port()
    history = msgspec.convert(
        {"text": "Shipped.", "toolCalls": [{"callId": "c1", "name": "lookup", "outcome": "error"}]},
        type=AttemptHistory,
    )
    run = FIXTURE.run(Request(history, port))  # type: ignore[arg-type]
    next(run)
    assert port.seeded == [("Shipped.", [("c1", "lookup", "error")])]


def test_an_empty_history_is_refused() -> None:
    run = FIXTURE.run(Request(AttemptHistory(), Port()))  # type: ignore[arg-type]
    with pytest.raises(FixtureError, match="no text and no Tool call"):
        next(run)
