"""A witness check that names the record it reads (``WitnessCheck(reads=...)``) is skipped on a
Trial without that record: for every shipped family, that is exactly a check that would have
said nothing there, whatever else the Evidence holds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence
from eval_core._case.witness import WitnessCheck, contradictions
from eval_core._plugins.plugins import load_plugins
from eval_kit.strategies import evidence_strategy

CHECKS = [check for check in load_plugins().witness_checks if check.reads is not None]


def test_the_families_that_read_a_record_say_so() -> None:
    assert len(CHECKS) >= 12  # files, MCP, durable, doctor, integration reply, routine


@settings(max_examples=150, deadline=None)
@given(evidence_strategy(), st.sampled_from(CHECKS))
def test_a_check_says_nothing_without_the_record_it_reads(
    evidence: Evidence, check: WitnessCheck
) -> None:
    evidence.records = {}
    assert list(check.check(evidence) or ()) == []


def test_a_check_is_asked_exactly_when_its_record_was_read_back() -> None:
    class Seen:
        pass

    asked: list[Evidence] = []

    def check(evidence: Evidence) -> list[str]:
        asked.append(evidence)
        return ["the record disagrees"]

    reading = WitnessCheck("reads a record", check, reads=Seen)
    without = Evidence(tier="l2")
    assert contradictions(without, [reading]) == [] and asked == []
    with_record = Evidence(tier="l2")
    with_record.put(Seen())
    assert contradictions(with_record, [reading]) == ["reads a record: the record disagrees"]
    assert asked == [with_record]
