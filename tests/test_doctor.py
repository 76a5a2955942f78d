"""The Soul doctor after a Turn: a Routine the Turn committed with a finding is repaired by a
proposal that lints clean, or escalated. Broken on purpose, the Cases that measure it turn
FAIL."""

from __future__ import annotations

from typing import Any

import pytest

from agent_runtime.soul import doctor
from agent_runtime.soul.doctor import DoctorEvent, Finding, Repair
from agent_runtime.soul.repo import SoulRepo
from tests.conftest import Sweep

REPAIRED = "l3-doctor-repairs-a-routine-that-reads-an-undeclared-input"
STILL_BROKEN = "l3-doctor-escalates-a-repair-that-still-does-not-lint"
NO_REPAIR = "l3-doctor-escalates-a-finding-it-has-no-repair-for"
ANOTHER = "l3-doctor-escalates-a-repair-proposed-for-another-routine"
ALL = [REPAIRED, STILL_BROKEN, NO_REPAIR, ANOTHER]


def test_the_doctor_cases_pass_against_the_real_runtime(sweep: Sweep) -> None:
    sweep.green(ALL)


def test_a_doctor_that_never_runs_fails_every_doctor_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(doctor, "examine", lambda repo: [])
    sweep.red(ALL)


def test_a_doctor_that_trusts_any_proposal_fails_the_still_broken_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proposal is committed without the lint, and reported repaired."""

    def trusting(
        repo: SoulRepo, source: Any, finding: Finding, published: Any, head: str
    ) -> DoctorEvent:
        proposal = source.propose(finding)
        if proposal is None:
            return DoctorEvent("escalated", finding.subject, "no repair was proposed")
        commit = repo.write("Routine", finding.slug, proposal.content)
        return DoctorEvent("repaired", finding.subject, proposal.summary, commit.sha)

    monkeypatch.setattr(doctor, "_treat", trusting)
    sweep.red([STILL_BROKEN])


def test_a_doctor_that_ignores_which_routine_a_repair_is_for_fails_that_case(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_treat = doctor._treat

    class Anyone:
        def __init__(self, source: Any, slug: str) -> None:
            self.source, self.slug = source, slug

        def propose(self, finding: Finding) -> Repair | None:
            made = self.source.propose(finding)
            return None if made is None else Repair(self.slug, made.content, made.summary)

    def careless(
        repo: SoulRepo, source: Any, finding: Finding, published: Any, head: str
    ) -> DoctorEvent:
        return real_treat(repo, Anyone(source, finding.slug), finding, published, head)

    monkeypatch.setattr(doctor, "_treat", careless)
    sweep.red([ANOTHER])
    sweep.green([REPAIRED])


def test_a_doctor_that_drops_what_it_cannot_repair_fails_the_escalation_cases(
    sweep: Sweep, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_run = doctor.run_doctor

    def silent(conn: Any, repo: SoulRepo, source: Any, published: Any, run_id: Any) -> Any:
        real_record = doctor._record

        def kept(conn: Any, events: list[DoctorEvent], run_id: Any) -> None:
            real_record(conn, [e for e in events if e.kind != "escalated"], run_id)

        doctor._record = kept  # type: ignore[assignment]
        try:
            return real_run(conn, repo, source, published, run_id)
        finally:
            doctor._record = real_record  # type: ignore[assignment]

    monkeypatch.setattr(doctor, "run_doctor", silent)  # the doctor's scenario calls it here
    sweep.red([STILL_BROKEN, NO_REPAIR, ANOTHER])
    sweep.green([REPAIRED])
