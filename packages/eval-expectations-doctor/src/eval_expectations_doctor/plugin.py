"""Entry point of the doctor family: the ``doctor`` field (L3), its fixture and its two kinds.

``doctor: {repair?: {slug, content, summary}}`` runs the Host's Soul doctor after each Turn.
The fixture is the doctor's repair source (what a model would propose): it offers the Case's
``repair`` for every finding, and the doctor decides whether it applies (the right Routine, a
proposal that lints clean, a Soul that has not moved). What the doctor did is read back into
a :class:`DoctorRecord`: its own steps from the Host's database (its record), and the commits
its passes added to the Soul repository (the witness). An escalation is scored on both: the
doctor said so, and nothing of the Routine was committed; a repair, on the commit that landed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, Protocol

import msgspec

from eval_core.kinds import (
    BLOCK,
    L3,
    CaseBase,
    CaseField,
    Evidence,
    Expectation,
    FixtureRequest,
    KindSpec,
    LoadContext,
    Location,
    Problems,
    TrialFixture,
    Verdict,
    WitnessCheck,
    failed,
    hookimpl,
    need,
    non_empty,
    own_cases,
    passed,
    quoted,
    scorer,
)
from eval_core.records import DoctorEvent, SoulCommit

FIELD = "doctor"
_SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"  # compiled (and kept by re) at first use


class ProposedRepair(msgspec.Struct, **BLOCK):
    """The new content the repair source proposes for the Routine ``slug``, and why.
    ``concurrentContent``: an operator writes this content of the Routine while the repair is
    being prepared (it lands first), so the repair's ``soul_write`` meets a moved Soul."""

    slug: str
    content: str
    summary: str
    concurrent_content: str | None = None


class DoctorBlock(msgspec.Struct, **BLOCK):
    repair: ProposedRepair | None = None


class SoulDoctor(Protocol):
    """The Host's Soul doctor: run after each Turn with a repair source; what it did, and what
    its passes committed to the Soul repository."""

    def after_each_turn(self, propose: Callable[[str, str], Any]) -> None: ...

    def events(self) -> Sequence[DoctorEvent]: ...

    def doctor_commits(self) -> Sequence[SoulCommit]: ...


class DoctorCommit(msgspec.Struct, frozen=True, kw_only=True):
    """A commit a doctor's pass added to the Soul repository, and the paths it touched."""

    sha: str
    paths: list[str]


class DoctorRecord(msgspec.Struct, frozen=True, kw_only=True):
    """Every step of the doctor, in order, as the Host's database holds them (its record), and
    the commits its passes added to the Soul repository (the repository's log)."""

    events: list[DoctorEvent]
    proposals: int
    commits: list[DoctorCommit] = msgspec.field(default_factory=list)

    def touching(self, subject: str) -> list[DoctorCommit]:
        """The doctor's commits that touched a file of the artifact ``Kind:slug`` (a bare slug:
        of any Kind)."""
        kind, _, slug = subject.rpartition(":")
        if kind:
            return [c for c in self.commits if any(_in(p, kind, slug) for p in c.paths)]
        return [c for c in self.commits if any(_in(p, None, slug) for p in c.paths)]


def _in(path: str, kind: str | None, slug: str) -> bool:
    """Whether a Soul file belongs to the artifact (``<kind>s/<slug>/...``)."""
    folder, _, rest = path.partition("/")
    own = rest.partition("/")[0] == slug
    return own and (kind is None or folder == f"{kind.lower()}s")


def names(subject: str, recorded: str) -> bool:
    """Whether a Case's ``subject`` names the recorded ``Kind:slug``: exactly, or as the
    original also writes it, by its bare slug (the doctor's subjects are unique by slug in
    what it sweeps: Routines)."""
    return subject == recorded or (":" not in subject and recorded.partition(":")[2] == subject)


def _doctor(request: FixtureRequest) -> Iterator[None]:
    block: DoctorBlock = request.value
    asked: list[str] = []

    def propose(subject: str, problem: str) -> ProposedRepair | None:
        asked.append(subject)
        return block.repair

    doctor = request.service(SoulDoctor)
    doctor.after_each_turn(propose)
    yield
    request.record(
        DoctorRecord(
            events=[msgspec.convert(e, DoctorEvent, from_attributes=True) for e in doctor.events()],
            proposals=len(asked),
            commits=[
                msgspec.convert(c, DoctorCommit, from_attributes=True)
                for c in doctor.doctor_commits()
            ],
        )
    )


class _Subject(Expectation, frozen=True):
    subject: str


class DoctorRepaired(_Subject, tag="doctor_repaired", frozen=True): ...


class DoctorEscalated(_Subject, tag="doctor_escalated", frozen=True): ...


@scorer
def _score(wanted: str, e: _Subject, ev: Evidence) -> Verdict:
    """``doctor_repaired`` (``wanted`` ``repaired``) and ``doctor_escalated``."""
    subject = e.subject
    why = f"the doctor's work was not read back (the Case needs 'doctor'); {subject}"
    record = need(ev.record(DoctorRecord), why)
    mine = [e for e in record.events if names(subject, e.subject)]
    done = [e for e in mine if e.kind == wanted]
    landed = record.touching(subject)
    if done and wanted == "escalated":
        if landed:
            return failed(
                f"the doctor escalated {quoted(subject)} ({quoted(done[0].detail, 120)}), yet "
                f"the Soul repository holds its commit {landed[0].sha[:12]} touching "
                f"{', '.join(landed[0].paths)}"
            )
        return passed(
            f"the doctor escalated {quoted(subject)} and committed nothing of it: "
            f"{quoted(done[0].detail)}"
        )
    if done:
        shas = {c.sha for c in landed}
        kept = [e for e in done if e.commit in shas]
        if not kept:
            said = done[0].commit[:12] if done[0].commit else "no commit"
            return failed(
                f"the doctor recorded repairing {quoted(subject)} ({said}), but none of its "
                f"commits in the Soul repository touched it ({len(record.commits)} commit(s))"
            )
        return passed(
            f"the doctor repaired {quoted(subject)} with commit {str(kept[0].commit)[:12]} "
            f"in the Soul repository: {quoted(kept[0].detail)}"
        )
    if not mine:
        others = ", ".join(sorted({e.subject for e in record.events})) or "nothing"
        return failed(f"the doctor found nothing about {quoted(subject)}; it found: {others}")
    outcome = "; ".join(f"{e.kind}: {quoted(e.detail, 160)}" for e in mine if e.kind != "finding")
    return failed(f"the doctor did not mark {quoted(subject)} {wanted}: {outcome or 'no outcome'}")


def _check_subject(e: _Subject, _case: object) -> Problems:
    kind, colon, slug = e.subject.partition(":")
    if colon and (not kind or not slug):
        return [
            (
                ".subject",
                f"{e.subject!r} must be Kind:slug or a bare slug, for example "
                "Routine:daily-sweep or daily-sweep",
            )
        ]
    return non_empty(e.subject, ".subject")


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name=FIELD,
            type=DoctorBlock,
            tiers=L3,
            description=(
                "Run the Soul doctor after each Turn: {repair?: {slug, content, summary}}, the "
                "repair it is offered."
            ),
            examples=[{}],
        )
    ]


@hookimpl
def eval_kinds() -> list[KindSpec]:
    of_subject = partial(
        KindSpec,
        witness="store",
        evidence_at=Location.record_of(DoctorRecord),
        tiers=L3,
        check=_check_subject,
        seam_independent=True,
    )
    return [
        of_subject(
            struct=DoctorRepaired,
            scorer=partial(_score, "repaired"),
            description=(
                "The doctor repaired the subject (Kind:slug, or a bare slug) with a commit the "
                "Soul repository holds, touching the artifact's files."
                " Needs `doctor`."
            ),
            examples=[{"kind": "doctor_repaired", "subject": "Routine:ticket-digest"}],
        ),
        of_subject(
            struct=DoctorEscalated,
            scorer=partial(_score, "escalated"),
            description=(
                "The doctor escalated the subject (Kind:slug, or a bare slug) to a person, and the "
                "Soul repository holds no commit of its passes touching the artifact's files."
                " Needs `doctor`."
            ),
            examples=[{"kind": "doctor_escalated", "subject": "Routine:order-restock"}],
        ),
    ]


def escalated_but_committed(ev: Evidence) -> Iterable[str]:
    """The doctor's record says it escalated (wrote nothing); the repository holds its commit."""
    record = ev.record(DoctorRecord)
    if record is None:
        return
    for subject in dict.fromkeys(e.subject for e in record.events if e.kind == "escalated"):
        repaired = {e.commit for e in record.events if e.subject == subject and e.commit}
        for commit in record.touching(subject):
            if commit.sha not in repaired:
                yield (
                    f"the doctor recorded {quoted(subject)} as escalated; the Soul repository "
                    f"holds its commit {commit.sha[:12]} touching {', '.join(commit.paths)}"
                )


def repaired_but_not_committed(ev: Evidence) -> Iterable[str]:
    """A repair the doctor recorded with a commit the repository does not hold."""
    record = ev.record(DoctorRecord)
    if record is None:
        return
    shas = {c.sha for c in record.commits}
    for event in record.events:
        if event.kind == "repaired" and event.commit and event.commit not in shas:
            yield (
                f"the doctor recorded repairing {quoted(event.subject)} with commit "
                f"{event.commit[:12]}; the Soul repository holds no such commit of its passes"
            )


@hookimpl
def eval_witness_checks() -> list[WitnessCheck]:
    return [
        WitnessCheck("doctor escalated but committed", escalated_but_committed, reads=DoctorRecord),
        WitnessCheck(
            "doctor repaired but not committed", repaired_but_not_committed, reads=DoctorRecord
        ),
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    block = case.field(FIELD)
    if block is None:
        return [
            (f"$.expect[{i}].kind", f"{e.kind_name!r} needs 'doctor'")
            for i, e in enumerate(case.expect)
            if isinstance(e, DoctorRepaired | DoctorEscalated)
        ]
    assert isinstance(block, DoctorBlock)
    problems: list[tuple[str, str]] = []
    repair = block.repair
    if repair is not None:
        if not re.match(_SLUG, repair.slug):
            problems.append(
                ("$.doctor.repair.slug", f"{repair.slug!r} is not a lowercase-hyphenated slug")
            )
        if repair.concurrent_content is not None:
            problems.extend(
                (f"$.doctor.repair{suffix}", reason)
                for suffix, reason in non_empty(repair.concurrent_content, ".concurrentContent")
            )
        for name in ("content", "summary"):
            problems.extend(
                (f"$.doctor.repair{suffix}", reason)
                for suffix, reason in non_empty(getattr(repair, name), f".{name}")
            )
    return problems


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [TrialFixture(name="doctor", field=FIELD, run=_doctor, needs=(SoulDoctor,))]
