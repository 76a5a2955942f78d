"""The doctor family on its own: an escalation is scored on the doctor's record and on the Soul
repository's commits (nothing of the Routine may have landed), a repair on the commit that
landed; the witness checks name both sides; the kinds keep the contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval_core._case.evidence import Evidence
from eval_core._case.kinds import KindSpec
from eval_core.records import DoctorEvent
from eval_expectations_doctor.plugin import (
    DoctorCommit,
    DoctorEscalated,
    DoctorRecord,
    DoctorRepaired,
    escalated_but_committed,
    eval_kinds,
    repaired_but_not_committed,
)
from eval_kit import assert_kind_conforms, evidence

SNAPSHOTS = Path(__file__).parent / "snapshots"
SUBJECT = "Routine:ticket-digest"
PATH = "routines/ticket-digest/routine.yaml"
SPECS = {spec.struct: spec for spec in eval_kinds()}


def record(*events: DoctorEvent, commits: tuple[DoctorCommit, ...] = ()) -> Evidence:
    return evidence("l3", [DoctorRecord(events=list(events), proposals=1, commits=list(commits))])


FINDING = DoctorEvent(kind="finding", subject=SUBJECT, detail="reads the undeclared input 'queu'")
ESCALATED = DoctorEvent(kind="escalated", subject=SUBJECT, detail="does not lint")
REPAIRED = DoctorEvent(kind="repaired", subject=SUBJECT, detail="Read queue.", commit="c" * 40)
LANDED = DoctorCommit(sha="c" * 40, paths=[PATH])
OTHER = DoctorCommit(sha="d" * 40, paths=["routines/queue-digest/routine.yaml"])


def escalated(ev: Evidence) -> tuple[bool, str]:
    verdict = SPECS[DoctorEscalated].scorer(DoctorEscalated(subject=SUBJECT), ev)
    return verdict.passed, verdict.detail


def repaired(ev: Evidence) -> tuple[bool, str]:
    verdict = SPECS[DoctorRepaired].scorer(DoctorRepaired(subject=SUBJECT), ev)
    return verdict.passed, verdict.detail


def test_an_escalation_with_nothing_committed_passes() -> None:
    ok, detail = escalated(record(FINDING, ESCALATED, commits=(OTHER,)))
    assert ok and "committed nothing of it" in detail


def test_an_escalation_whose_repair_landed_anyway_fails() -> None:
    ok, detail = escalated(record(FINDING, ESCALATED, commits=(LANDED,)))
    assert not ok and "yet the Soul repository holds its commit cccccccccccc" in detail


def test_a_repair_is_the_commit_that_landed() -> None:
    assert repaired(record(FINDING, REPAIRED, commits=(LANDED,)))[0]
    ok, detail = repaired(record(FINDING, REPAIRED, commits=(OTHER,)))
    assert not ok and "none of its commits in the Soul repository touched it" in detail
    assert not repaired(record(FINDING, ESCALATED, commits=(LANDED,)))[0]


def test_no_read_back_fails() -> None:
    for score in (escalated, repaired):
        ok, detail = score(Evidence(tier="l3"))
        assert not ok and "not read back" in detail


def test_the_witness_checks_name_both_sides() -> None:
    [line] = escalated_but_committed(record(FINDING, ESCALATED, commits=(LANDED,)))
    assert "recorded" in line and "as escalated" in line and "holds its commit" in line
    assert not list(escalated_but_committed(record(FINDING, ESCALATED, commits=(OTHER,))))
    [line] = repaired_but_not_committed(record(FINDING, REPAIRED, commits=(OTHER,)))
    assert "holds no such commit" in line
    assert not list(repaired_but_not_committed(record(FINDING, REPAIRED, commits=(LANDED,))))
    for check in (escalated_but_committed, repaired_but_not_committed):
        assert not list(check(Evidence(tier="l3")))


@pytest.mark.parametrize("spec", eval_kinds(), ids=lambda spec: spec.name)
def test_the_kinds_keep_the_contract(spec: KindSpec) -> None:
    assert spec.witness == "store"
    assert_kind_conforms(
        spec, examples=60, records=[DoctorRecord], snapshot=SNAPSHOTS / f"{spec.name}.schema.json"
    )


def test_a_bare_slug_names_the_artifact_of_any_kind() -> None:
    """The original writes ``subject: ticket-digest``; it names ``Routine:ticket-digest``."""
    bare = DoctorRepaired(subject="ticket-digest")
    verdict = SPECS[DoctorRepaired].scorer(bare, record(FINDING, REPAIRED, commits=(LANDED,)))
    assert verdict.passed, verdict.detail
    other = DoctorRepaired(subject="queue-digest")
    verdict = SPECS[DoctorRepaired].scorer(other, record(FINDING, REPAIRED, commits=(LANDED,)))
    assert not verdict.passed and "found nothing about" in verdict.detail
    check: Any = SPECS[DoctorRepaired].check  # the load rule reads no more than the subject
    assert not check(bare, None) and check(DoctorRepaired(subject="Routine:"), None)
