"""The run-events family (L3): what a durable Turn left in the database, read back.

Its fixture reads the Host's durable Runs and Soul repository after the Trial into a
:class:`RunRecord`: every Turn's Run, State and Turn status, the persisted Messages with their
metadata, the Soul commits and the active publication after each Turn, every return of a worker
holding a stale lease, and the ordered run events (the Trial's Evidence). Every kind here reads
only that record (and the Tool results and denials the Host read back from the same database).
A missing record, Turn or observation is a failure with a reason, never a pass.

The two targeted Tool-result kinds (``tool_result_field_equals``, ``tool_result_reason_contains``)
also run at L2: every Host reports each Tool's outcome there too (a framework Host's Tool
wrapper records what it returned to the framework), and a denial recorded as a failure, an
invalid call as a success or a result filed under another call is a regression a Case must see.

Journeys fold: a status without ``turnIndex`` is the first Turn's that did not succeed, else the
last Turn's; events, Messages, commits and Tool results accumulate over the Turns.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache, partial
from typing import Any, Generic, Literal, NamedTuple, Protocol, TypeVar

import msgspec

from eval_core.kinds import (
    L2,
    L3,
    PATH,
    REASON,
    TEXT,
    CaseBase,
    Event,
    Evidence,
    Expectation,
    FixtureRequest,
    Grounding,
    KindSpec,
    LoadContext,
    Location,
    Problems,
    ScriptedResult,
    ToolResult,
    TrialFixture,
    Verdict,
    WitnessCheck,
    absent,
    at_least,
    deep_equal,
    failed,
    first_equal,
    hookimpl,
    minimum,
    need,
    own_cases,
    passed,
    present,
    properties,
    quoted,
    render,
    resolve,
    rules,
    scorer,
    values_at,
)
from eval_core.records import (
    ActivePublication,
    PersistedMessage,
    SoulCommit,
    StaleWrite,
    TurnRecord,
    folded,
)
from eval_expectations_durable.turns import turn_index_problems

SOUL_SEAM = "soul_write"
R = TypeVar("R")
_NO_RECORD = "no durable Run was read back (not an L3 Trial?)"


class DurableRuns(Protocol):
    """The Trial's Runs as the Host's database holds them, Turn by Turn."""

    def turns(self) -> Sequence[TurnRecord]: ...

    def messages(self) -> Sequence[PersistedMessage]: ...

    def stale_writes(self) -> Sequence[StaleWrite]: ...

    def restarts(self) -> int: ...


class SoulHistory(Protocol):
    """The Eval Soul repository's commits and active publication after each Turn."""

    def commits(self) -> Sequence[SoulCommit]: ...

    def publications(self) -> Sequence[ActivePublication]: ...


class RunRecord(msgspec.Struct, kw_only=True):
    """Everything the durable Turns of one Trial left behind, in Turn order."""

    turns: list[TurnRecord] = msgspec.field(default_factory=list)
    events: list[Event] = msgspec.field(default_factory=list)
    messages: list[PersistedMessage] = msgspec.field(default_factory=list)
    commits: list[SoulCommit] = msgspec.field(default_factory=list)
    publications: list[ActivePublication] = msgspec.field(default_factory=list)
    stale_writes: list[StaleWrite] = msgspec.field(default_factory=list)
    restarts: int = 0
    """How often the Host's process restarted mid-Trial, each time a new database session."""

    def folded(self) -> TurnRecord | None:
        """The first Turn that did not succeed, else the last; ``None`` with no Turn."""
        return folded(self.turns)


def record_of(ev: Evidence) -> RunRecord | None:
    return ev.record(RunRecord)


def _record(ev: Evidence, cannot: str) -> RunRecord:
    """The record read back, or the scorer fails: none, and what it ``cannot`` do."""
    return need(record_of(ev), f"{_NO_RECORD}; {cannot}")


def _read_back(request: FixtureRequest) -> Iterator[None]:
    runs, soul = request.service(DurableRuns), request.service(SoulHistory)
    yield
    request.record(
        RunRecord(
            turns=_copied(runs.turns(), TurnRecord),
            events=list(request.evidence.events or ()),
            messages=_copied(runs.messages(), PersistedMessage),
            commits=_copied(soul.commits(), SoulCommit),
            publications=_copied(soul.publications(), ActivePublication),
            stale_writes=_copied(runs.stale_writes(), StaleWrite),
            restarts=runs.restarts(),
        )
    )


def _copied(views: Sequence[object], record: type[R]) -> list[R]:
    """What the Host answered, checked field by field against the shared record (a Host may
    answer with objects of its own that carry the same attributes)."""
    return [msgspec.convert(view, record, from_attributes=True) for view in views]


@own_cases
def _uses_family(case: CaseBase) -> bool:
    return case.tier == "l3" and any(e.kind_name in kind_names() for e in case.expect)


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [
        TrialFixture(
            name="durable-read-back",
            applies=_uses_family,
            run=_read_back,
            needs=(DurableRuns, SoulHistory),
        )
    ]


# -- statuses ---------------------------------------------------------------------------------


class _Status(Expectation, frozen=True):
    status: str
    turn_index: int | None = None


class RunStatus(_Status, tag="run_status", frozen=True): ...


class TurnStatus(_Status, tag="turn_status", frozen=True): ...


class StateStatus(_Status, tag="state_status", frozen=True): ...


def _turn(record: RunRecord, turn_index: int | None) -> tuple[TurnRecord | None, str]:
    if turn_index is None:
        turn = record.folded()
        return turn, "no Turn was stored" if turn is None else f"Turn {turn.turn_index} (folded)"
    for turn in record.turns:
        if turn.turn_index == turn_index:
            return turn, f"Turn {turn_index}"
    return None, f"Turn {turn_index} was not stored ({len(record.turns)} Turn(s) were)"


@scorer
def _score_status(which: str, attr: str, e: _Status, ev: Evidence) -> Verdict:
    """The ``which`` status (a TurnRecord's ``attr``) of the Turn asked for, or the folded one."""
    record = _record(ev, f"cannot read the {which} status")
    turn, where = _turn(record, e.turn_index)
    if turn is None:
        return failed(f"{where}; expected {which} status {quoted(e.status)}")
    actual = getattr(turn, attr)
    shown = "not completed" if actual is None else actual
    reason = f" (reason: {quoted(turn.reason, 160)})" if turn.reason else ""
    detail = f"{where}: {which} status {quoted(shown)}{reason}, expected {quoted(e.status)}"
    return Verdict(shown == e.status, detail)


# -- events, durable text, Messages ------------------------------------------------------------


Audience = Literal["participant", "operator"]
"""Who a durable event is filed for: the chat's participant, or the operator alone."""


class RunEventEmitted(Expectation, tag="run_event_emitted", frozen=True):
    event_type: str
    count: int | None = None
    audience: Audience | None = None


class RunEventNotEmitted(Expectation, tag="run_event_not_emitted", frozen=True):
    event_type: str
    audience: Audience | None = None


class RunEventTextOmits(Expectation, tag="run_event_text_omits", frozen=True):
    text: str
    ungrounded: str | None = None


class RunEventFieldEquals(Expectation, tag="run_event_field_equals", frozen=True):
    event_type: str
    path: str
    value: Any


class PersistedMessageMetadataEquals(
    Expectation, tag="persisted_message_metadata_equals", frozen=True
):
    path: str
    value: Any


def _event_types(events: Sequence[Event]) -> str:
    counts: dict[str, int] = {}
    for event in events:
        counts[event.type] = counts.get(event.type, 0) + 1
    return ", ".join(f"{k}×{v}" for k, v in sorted(counts.items())) or "none"


@scorer
def _score_event_emitted(e: RunEventEmitted, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot count {quoted(e.event_type)} events")
    typed = [event for event in record.events if event.type == e.event_type]
    found = sum(1 for event in typed if e.audience in (None, event.participant))
    name, filed_for = quoted(e.event_type), ""
    seen = f"events: {_event_types(record.events)}"
    if e.audience is not None:
        filed_for = f" for the {e.audience}"
        audiences = ", ".join(sorted({event.participant for event in typed})) or "nobody"
        seen = f"{name} filed for: {audiences}; {seen}"
    if e.count is None:
        if found:
            return passed(f"{found} durable {name} event(s){filed_for}; {seen}")
        return failed(f"no durable {name} event{filed_for}; {seen}")
    detail = f"{found} durable {name} event(s){filed_for}, expected exactly {e.count}; {seen}"
    return Verdict(found == e.count, detail)


@scorer
def _score_event_not_emitted(e: RunEventNotEmitted, ev: Evidence) -> Verdict:
    """None of that type in a record that was read (no record: nothing observed, a failure)."""
    record = _record(ev, f"cannot tell whether a {quoted(e.event_type)} event was recorded")
    found = [
        event
        for event in record.events
        if event.type == e.event_type and e.audience in (None, event.participant)
    ]
    filed_for = "" if e.audience is None else f" for the {e.audience}"
    seen = f"events: {_event_types(record.events)}"
    if found:
        turns = ", ".join(sorted({str(event.turn_index) for event in found}))
        return failed(
            f"{len(found)} durable {quoted(e.event_type)} event(s){filed_for} (Turn {turns}); "
            f"{seen}"
        )
    return passed(f"no durable {quoted(e.event_type)} event{filed_for}; {seen}")


@scorer
def _score_event_field(e: RunEventFieldEquals, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot read {quoted(e.event_type)} events")
    events = [event for event in record.events if event.type == e.event_type]
    if not events:
        return failed(
            f"no durable {quoted(e.event_type)} event; events: {_event_types(record.events)}"
        )
    return _equals(
        events,
        _payload,
        e.path,
        e.value,
        _Named(
            lambda event: f"#{event.seq}",
            lambda event: (
                f"durable {quoted(e.event_type)} event #{event.seq} (Turn {event.turn_index})"
            ),
            f"no durable {quoted(e.event_type)} event",
        ),
    )


class _Named(NamedTuple, Generic[R]):
    """How an ``*_equals`` verdict names a record: ``label`` in the list of what each held,
    ``which`` when it holds the value, ``none`` for no record at all."""

    label: Callable[[R], str]
    which: Callable[[R], str]
    none: str


def _equals(
    records: Sequence[R], read: Callable[[R], Any], path: str, value: Any, named: _Named[R]
) -> Verdict:
    """An ``*_equals`` verdict: the first record that holds ``value`` at ``path`` passes; else
    it fails and says what each record holds there."""
    hit = first_equal(records, read, path, value)
    if hit is not None:
        record, actual = hit
        return passed(f"{named.which(record)} has {path} = {render(actual)}")
    looked = values_at(records, read, path, named.label)
    return failed(f"{named.none} has {path} = {render(value)}; " + "; ".join(looked[:10]))


def _payload(event: Event) -> Any:
    return event.payload


def participant_text(record: RunRecord) -> str | None:
    """The concatenated durable participant ``text.delta`` payloads; ``None`` without any."""
    pieces = [
        event.payload.get("text")
        for event in record.events
        if event.type == "text.delta"
        and event.participant == "participant"
        and isinstance(event.payload, dict)
    ]
    texts = [p for p in pieces if isinstance(p, str)]
    return "".join(texts) if texts else None


@scorer
def _score_text_omits(e: RunEventTextOmits, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot confirm the streamed text omits {quoted(e.text)}")
    text = need(
        participant_text(record),
        f"no durable participant text.delta events; cannot confirm it omits {quoted(e.text)}",
    )
    said = f"durable streamed text {quoted(text)}"
    hit = f"{said} contains {quoted(e.text)}" if e.text.casefold() in text.casefold() else None
    return absent(hit, f"{said} omits {quoted(e.text)}")


@scorer
def _score_metadata_equals(e: PersistedMessageMetadataEquals, ev: Evidence) -> Verdict:
    record = _record(ev, "cannot read persisted Message metadata")
    assistant = [m for m in record.messages if m.role == "assistant"]
    if not assistant:
        return failed(f"no assistant Message was persisted; cannot read {e.path}")
    return _equals(
        assistant,
        _metadata,
        e.path,
        e.value,
        _Named(
            lambda m: f"Turn {m.turn_index}",
            lambda m: f"the Turn {m.turn_index} assistant Message",
            "no persisted assistant Message",
        ),
    )


def _metadata(message: PersistedMessage) -> Any:
    return message.metadata


# -- real Tool results and denials -------------------------------------------------------------


class _Targeted(Expectation, frozen=True):
    name: str
    argument_path: str
    argument_value: Any
    status: str


class ToolResultFieldEquals(_Targeted, tag="tool_result_field_equals", frozen=True):
    output_path: str
    value: Any
    turn_index: int | None = None


class ToolResultReasonContains(_Targeted, tag="tool_result_reason_contains", frozen=True):
    text: str
    turn_index: int | None = None


class ToolDenialContains(Expectation, tag="tool_denial_contains", frozen=True):
    name: str
    text: str


def _targeted(
    e: ToolResultFieldEquals | ToolResultReasonContains, ev: Evidence, cannot: str
) -> list[ToolResult]:
    """Results of the Tool whose argument matches, in the Turn asked for; else the scorer
    fails, saying why there is none and what it ``cannot`` do."""
    results = need(ev.tool_results, f"Tool results not observed; {cannot}")
    named = [r for r in results if r.name == e.name]
    if e.turn_index is not None:
        named = [r for r in named if r.turn_index == e.turn_index]
    where = f" in Turn {e.turn_index}" if e.turn_index is not None else ""
    need(named or None, f"no result of {quoted(e.name)}{where}; {cannot}")
    mine = [r for r in named if _holds(r.arguments, e.argument_path, e.argument_value)]
    need(
        mine or None,
        f"no result of {quoted(e.name)}{where} has argument {e.argument_path} = "
        f"{render(e.argument_value)} ({len(named)} result(s) looked at); {cannot}",
    )
    statuses = ", ".join(sorted({r.status for r in mine}))
    with_status = [r for r in mine if r.status == e.status]
    why = f"the targeted result(s) of {quoted(e.name)} ended {statuses}, not {e.status}"
    return need(with_status or None, f"{why}; {cannot}")


def _holds(document: Any, path: str, value: Any) -> bool:
    found, actual = resolve(document, path)
    return found and deep_equal(actual, value)


def _output(result: ToolResult) -> Any:
    return result.output


def _call_id(result: ToolResult) -> str:
    return result.call_id


@scorer
def _score_result_field(e: ToolResultFieldEquals, ev: Evidence) -> Verdict:
    results = _targeted(e, ev, f"cannot read {e.output_path}")
    return _equals(
        results,
        _output,
        e.output_path,
        e.value,
        _Named(
            _call_id,
            lambda r: f"result {r.call_id} of {quoted(e.name)} ({r.status})",
            f"no targeted result of {quoted(e.name)}",
        ),
    )


@scorer
def _score_result_reason(e: ToolResultReasonContains, ev: Evidence) -> Verdict:
    results = _targeted(e, ev, f"cannot look for {quoted(e.text)} in its reason")
    for result in results:
        if isinstance(result.reason, str) and e.text in result.reason:
            return passed(
                f"result {result.call_id} of {quoted(e.name)} ({result.status}) gives reason "
                f"{quoted(result.reason)}"
            )
    reasons = "; ".join(quoted(r.reason or "(none)", 80) for r in results[:5])
    return failed(f"no targeted reason of {quoted(e.name)} contains {quoted(e.text)}: {reasons}")


@scorer
def _score_denial(e: ToolDenialContains, ev: Evidence) -> Verdict:
    denials = need(ev.denials, f"denials not observed; cannot find a denial of {quoted(e.name)}")
    mine = [d for d in denials if d.name == e.name]
    if not mine:
        others = ", ".join(sorted({d.name for d in denials})) or "none"
        return failed(f"no call of {quoted(e.name)} was denied; denied Tools: {others}")
    for denial in mine:
        if e.text in denial.reason:
            return passed(
                f"call {denial.call_id} of {quoted(e.name)} was denied by {denial.source}: "
                f"{quoted(denial.reason)}"
            )
    reasons = "; ".join(quoted(d.reason, 80) for d in mine[:5])
    return failed(f"no denial of {quoted(e.name)} contains {quoted(e.text)}: {reasons}")


# -- the lease fence -----------------------------------------------------------------------------


class StaleWritesRefused(Expectation, tag="stale_writes_refused", frozen=True):
    pass


@scorer
def _score_stale(_e: StaleWritesRefused, ev: Evidence) -> Verdict:
    """What reached the database, not what was raised: a row the late worker changed fails,
    with or without an exception."""
    record = _record(ev, "cannot tell whether a stale lease wrote")
    if not record.stale_writes:
        granted = sum(1 for e in record.events if e.type == "approval.granted")
        if granted:
            return failed(
                f"{granted} approval(s) were granted and their Runs resumed, yet no worker came "
                "back with the lease it parked under: the fence was never tested"
            )
        return failed("no worker came back with a stale lease (no Run parked on an approval)")
    landed = [w for w in record.stale_writes if w.landed]
    if landed:
        return failed(
            f"{len(landed)} of {len(record.stale_writes)} late worker(s) wrote past the fence: "
            + "; ".join(
                f"Turn {w.turn_index}: {len(w.landed)} row(s) landed "
                f"({'raised' if w.raised else 'nothing raised'}), first {quoted(w.landed[0], 160)}"
                for w in landed[:5]
            )
        )
    said = sum(1 for w in record.stale_writes if w.raised)
    return passed(
        f"no row of the Run changed in any of the {len(record.stale_writes)} pass(es) of a "
        f"worker whose lease had moved on ({said} refused with "
        f"{quoted(record.stale_writes[0].detail, 160)})"
    )


class HostRestarts(Expectation, tag="host_restarts", frozen=True):
    count: int


@scorer
def _score_restarts(e: HostRestarts, ev: Evidence) -> Verdict:
    """The Host's record of its own process: a restart counts only when it left the old
    database session behind (one that kept it restarted nothing, and a Run that "survived" it
    proved nothing)."""
    record = _record(ev, "cannot tell how often the Host restarted")
    folded = record.folded()
    status = f"; the Run is {folded.run_status}" if folded is not None else ""
    detail = (
        f"the Host restarted {record.restarts} time(s) mid-Trial, each with a new database "
        f"session, expected {e.count}{status}"
    )
    return Verdict(record.restarts == e.count, detail)


def refused_but_landed(ev: Evidence) -> Iterable[str]:
    """The runtime raised its stale-generation refusal, yet a row of the Run changed."""
    record = record_of(ev)
    if record is None:
        return
    for write in record.stale_writes:
        if write.raised and write.landed:
            yield (
                f"the runtime refused the late worker of Turn {write.turn_index} "
                f"({quoted(write.detail, 120)}); {len(write.landed)} row(s) of its Run landed, "
                f"first {quoted(write.landed[0], 160)}"
            )


def receipt_names_another_model(ev: Evidence) -> Iterable[str]:
    """A persisted assistant Message's receipt names a model other than the one the binding
    answered as (``Evidence.model_answered_as``): the runtime's record of what answered the
    Turn is wrong. Not asked where either side is missing."""
    answered = ev.model_answered_as
    record = record_of(ev)
    if answered is None or record is None:
        return
    for message in record.messages:
        receipt = message.metadata.get("receipt") if isinstance(message.metadata, dict) else None
        if message.role != "assistant" or not isinstance(receipt, dict) or "modelId" not in receipt:
            continue
        if (named := receipt["modelId"]) != answered:
            yield (
                f"the receipt on the Turn {message.turn_index} assistant Message names the model "
                f"{render(named, 120)}, but the binding answered as {quoted(answered, 120)}"
            )


def _a_worker_came_back(_e: object, ev: Evidence) -> bool:
    """The seam of the fence: a Run parked on an approval the operator granted, so the worker
    that parked it had a lease to come back with. Whether it came back is the Host's part and
    the scorer's to fail (a Host that never brings it back tested no fence), not the seam's."""
    record = record_of(ev)
    return record is not None and (
        bool(record.stale_writes) or any(e.type == "approval.granted" for e in record.events)
    )


# -- Souls --------------------------------------------------------------------------------------


class SoulCommitted(Expectation, tag="soul_committed", frozen=True):
    path: str
    subject: str | None = None


class SoulNotCommitted(Expectation, tag="soul_not_committed", frozen=True):
    path: str


class _Artifact(Expectation, frozen=True):
    artifact: str
    turn_index: int | None = None


class SoulPublished(_Artifact, tag="soul_published", frozen=True): ...


class SoulNotPublished(_Artifact, tag="soul_not_published", frozen=True): ...


def _touched(record: RunRecord, path: str) -> str | None:
    """The first commit in the Soul repository that touched the path, or ``None``."""
    for commit in record.commits:
        if path in commit.paths:
            return f"commit {commit.sha[:12]} (Turn {commit.turn_index}) touched {quoted(path)}"
    return None


@scorer
def _score_committed(e: SoulCommitted, ev: Evidence) -> Verdict:
    record = _record(ev, f"cannot look for a commit of {quoted(e.path)}")
    if e.subject is not None:
        return _score_subject(record, e.path, e.subject)
    touched = sorted({p for c in record.commits for p in c.paths})
    shown = ", ".join(touched[:10]) or "nothing"
    return present(
        _touched(record, e.path),
        f"no commit in the Soul repository touched {quoted(e.path)}; "
        f"{len(record.commits)} commit(s) touched: {shown}",
    )


def _score_subject(record: RunRecord, path: str, subject: str) -> Verdict:
    """A commit that touched the path has this subject, read from the repository's log."""
    touching = [c for c in record.commits if path in c.paths]
    hit = next((c for c in touching if c.subject == subject), None)
    if hit is not None:
        return passed(
            f"commit {hit.sha[:12]} (Turn {hit.turn_index}) touched {quoted(path)} with the "
            f"subject {quoted(subject)}"
        )
    said = "; ".join(f"{c.sha[:12]}: {quoted(c.subject or '(not read)')}" for c in touching)
    return failed(
        f"no commit that touched {quoted(path)} has the subject {quoted(subject)}; "
        f"{len(touching)} touched it: {said or 'none'}"
    )


@scorer
def _score_not_committed(e: SoulNotCommitted, ev: Evidence) -> Verdict:
    """The Soul repository's log, not the denial the runtime recorded: a write refused after it
    landed shows here."""
    record = _record(ev, f"cannot tell whether {quoted(e.path)} was committed")
    return absent(
        _touched(record, e.path),
        f"none of the {len(record.commits)} commit(s) in the Soul repository touched "
        f"{quoted(e.path)}",
    )


def _folder(arguments: Any) -> str | None:
    """Where a ``soul_write`` call writes, as the loader's layout folders it; ``None`` unseen."""
    if not isinstance(arguments, dict):
        return None
    kind, slug = arguments.get("kind"), arguments.get("slug")
    if not isinstance(kind, str) or not isinstance(slug, str) or not kind or not slug:
        return None
    return f"{kind.lower()}s/{slug}/"


def denied_but_committed(ev: Evidence) -> Iterable[str]:
    """The Soul repository's commits of a Turn against the ``soul_write`` calls the runtime
    recorded as writing (not denied): a denied write that landed is a commit nothing accounts
    for."""
    record = record_of(ev)
    if record is None or ev.tool_results is None or not record.commits:
        return
    denied = {(d.turn_index, d.call_id) for d in ev.denials or ()}
    writes: dict[tuple[int, str], int] = {}
    refused: dict[tuple[int, str], str] = {}
    for result in ev.tool_results:
        folder = _folder(result.arguments) if result.name == SOUL_SEAM else None
        if folder is None:
            continue
        key = (result.turn_index, folder)
        if result.status == "denied" or (result.turn_index, result.call_id) in denied:
            refused.setdefault(key, result.call_id)
        else:
            writes[key] = writes.get(key, 0) + 1
    for (turn, folder), call_id in refused.items():
        landed = [
            c
            for c in record.commits
            if c.turn_index == turn and any(p.startswith(folder) for p in c.paths)
        ]
        if len(landed) > writes.get((turn, folder), 0):
            yield (
                f"the runtime recorded soul_write call {call_id} of Turn {turn} as denied; the "
                f"Soul repository holds {len(landed)} commit(s) of {folder} that Turn, first "
                f"{landed[0].sha[:12]} ({', '.join(landed[0].paths)})"
            )


def _publication(record: RunRecord, turn_index: int | None) -> tuple[ActivePublication | None, str]:
    if not record.publications:
        return None, "no active Soul publication was read back"
    if turn_index is None:
        last = record.publications[-1]
        return last, f"the active publication after Turn {last.turn_index}"
    for publication in record.publications:
        if publication.turn_index == turn_index:
            return publication, f"the active publication after Turn {turn_index}"
    return None, f"no publication was read back for Turn {turn_index}"


@scorer
def _score_published(want: bool, e: _Artifact, ev: Evidence) -> Verdict:
    """``soul_published`` (``want``) and ``soul_not_published``."""
    record = _record(ev, "cannot read the active Soul publication")
    publication, where = _publication(record, e.turn_index)
    if publication is None:
        return failed(f"{where}; cannot tell whether {quoted(e.artifact)} is published")
    present = e.artifact in publication.artifacts
    shown = f"{where} ({publication.commit[:12]}) holds {len(publication.artifacts)} artifact(s)"
    if present == want:
        verb = "includes" if present else "does not include"
        return passed(f"{shown} and {verb} {quoted(e.artifact)}")
    if want:
        return failed(f"{shown}, without {quoted(e.artifact)}")
    return failed(f"{shown}, {quoted(e.artifact)} among them")


def _soul_write_called(_e: object, ev: Evidence) -> bool:
    """The seam of the Soul kinds: the writer Tool was called at least once."""
    return any(call.name == SOUL_SEAM for call in ev.tool_calls or ())


# -- load-time value rules ---------------------------------------------------------------------


TURN = minimum(1, "Turns count from 1")


def _check_artifact(e: _Artifact, _case: object) -> Problems:
    kind, _, slug = e.artifact.partition(":")
    problems = [] if e.turn_index is None else TURN.problems(e.turn_index, ".turnIndex")
    if kind in _NOT_PUBLISHED and slug:
        problems.append((".artifact", f"{e.artifact!r}: {_NOT_PUBLISHED[kind]}"))
    elif kind not in ("Agent", "Skill", "Routine") or not slug:
        problems.append(
            (".artifact", f"{e.artifact!r} must be Kind:slug, Kind Agent, Skill or Routine")
        )
    return problems


# Artifact kinds the original's Soul publishes and this runtime does not (one line naming the
# feature, rather than a syntax complaint: docs/from-the-original.md lists them).
_NOT_PUBLISHED = {
    kind: f"the runtime publishes no {kind} artifacts (an original-only feature, not built here)"
    for kind in ("Integration", "ToolContract", "ModelProfile")
}


def _scripted_results(case: CaseBase) -> Iterable[tuple[str, ScriptedResult]]:
    for index, result in enumerate(case.tool_results):
        yield f"$.toolResults[{index}]", result
    journey = case.field("journey")
    for t_index, turn in enumerate(journey or ()):
        for index, result in enumerate(getattr(turn, "tool_results", ()) or ()):
            yield f"$.journey[{t_index}].toolResults[{index}]", result


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """On L3 the Soul writer runs for real: its result is never scripted, in any Turn; and a
    ``turnIndex`` names a Turn the Case runs. Both concern every Case, whatever it uses, so
    this check is not marked ``own_cases``."""
    problems = turn_index_problems(case)
    if case.tier != "l3":
        return problems
    problems.extend(
        (f"{path}.name", f"{SOUL_SEAM} runs for real on L3: never script its result")
        for path, result in _scripted_results(case)
        if result.name == SOUL_SEAM
    )
    return problems


@hookimpl
def eval_kinds() -> list[KindSpec]:
    folds = "(with turnIndex, that Turn's; else the first Turn not succeeded, else the last)"
    l3 = partial(KindSpec, tiers=L3, evidence_at=Location.record_of(RunRecord))
    recorded = partial(l3, seam_independent=True)
    status = partial(recorded, witness="store", **rules(status=TEXT, turn_index=TURN))
    targeted = {"name": TEXT, "argument_path": PATH, "status": TEXT}
    result = partial(KindSpec, tiers=L2 | L3, evidence_at=Location.TOOL_CALLS)
    soul = partial(l3, witness="store", seam=_soul_write_called)
    publication = partial(
        soul,
        check=_check_artifact,
        json_schema=properties(
            artifact={"pattern": r"^(Agent|Skill|Routine):[\s\S]+$"}, turnIndex=at_least(1)
        ),
    )
    return [
        status(
            struct=RunStatus,
            scorer=partial(_score_status, "Run", "run_status"),
            description=f"The stored Run status {folds}.",
            examples=[{"kind": "run_status", "status": "failed"}],
        ),
        status(
            struct=TurnStatus,
            scorer=partial(_score_status, "Turn", "turn_status"),
            description=f"The stored Turn status; null reads 'not completed' {folds}.",
            examples=[{"kind": "turn_status", "status": "failed"}],
        ),
        status(
            struct=StateStatus,
            scorer=partial(_score_status, "invoke State", "state_status"),
            description=f"The stored status of the Run's invoke State {folds}.",
            examples=[{"kind": "state_status", "status": "failed"}],
        ),
        recorded(
            struct=RunEventEmitted,
            witness="events",
            scorer=_score_event_emitted,
            **rules(event_type=TEXT, count=minimum(1, "an exact positive count")),
            description=(
                "Durable run events of that type: at least one, or exactly count; with "
                "audience, only those filed for it (the chat's participant, or the operator "
                "alone: what the participant is shown of the Run)."
            ),
            examples=[
                {"kind": "run_event_emitted", "eventType": "text.delta"},
                {
                    "kind": "run_event_emitted",
                    "eventType": "turn.started",
                    "audience": "participant",
                },
            ],
        ),
        recorded(
            struct=RunEventNotEmitted,
            witness="events",
            scorer=_score_event_not_emitted,
            **rules(event_type=TEXT),
            description=(
                "No durable run event of that type (with audience, none filed for it) in the "
                "Run's record: such as no approval asked for a Tool reviewed as needing none."
            ),
            examples=[{"kind": "run_event_not_emitted", "eventType": "approval.granted"}],
        ),
        recorded(
            struct=RunEventFieldEquals,
            witness="events",
            scorer=_score_event_field,
            **rules(event_type=TEXT, path=PATH),
            description=(
                "Some durable run event of that type has the value at the payload path (the "
                "runtime's own record: what it wrote down, such as a guard decision's reason)."
            ),
            examples=[
                {
                    "kind": "run_event_field_equals",
                    "eventType": "guardrail.decision",
                    "path": "reason",
                    "value": "prompt_injection:encoded_instruction",
                }
            ],
        ),
        recorded(
            struct=RunEventTextOmits,
            witness="events",
            scorer=_score_text_omits,
            **rules(text=TEXT, ungrounded=REASON),
            grounding=Grounding(field="text"),
            text_compare="casefold",
            description=(
                "The concatenated durable participant text.delta payloads omit the text "
                "(case-insensitive); no streamed text fails."
            ),
            examples=[{"kind": "run_event_text_omits", "text": "4111 1111 1111 1111"}],
        ),
        recorded(
            struct=PersistedMessageMetadataEquals,
            witness="store",
            scorer=_score_metadata_equals,
            **rules(path=PATH),
            description="Some persisted assistant Message has the value at the metadata path.",
            examples=[
                {"kind": "persisted_message_metadata_equals", "path": "turnIndex", "value": 2}
            ],
        ),
        result(
            struct=ToolResultFieldEquals,
            tool_fields=("name",),
            witness="events",
            scorer=_score_result_field,
            **rules(**targeted, output_path=PATH, turn_index=TURN),
            description=(
                "A real result of the Tool, targeted by an argument value (and Turn), has that "
                "status and the value at the output path."
            ),
            examples=[
                {
                    "kind": "tool_result_field_equals",
                    "name": "file_list",
                    "argumentPath": "$",
                    "argumentValue": {},
                    "status": "succeeded",
                    "outputPath": "count",
                    "value": 1,
                }
            ],
        ),
        result(
            struct=ToolResultReasonContains,
            tool_fields=("name",),
            witness="events",
            scorer=_score_result_reason,
            **rules(**targeted, text=TEXT, turn_index=TURN),
            description="A targeted real result of the Tool has that status and reason text.",
            examples=[
                {
                    "kind": "tool_result_reason_contains",
                    "name": "file_read",
                    "argumentPath": "fileId",
                    "argumentValue": "payroll-q2",
                    "status": "failed",
                    "text": "not_found",
                }
            ],
        ),
        l3(
            struct=ToolDenialContains,
            tool_fields=("name",),
            witness="events",
            scorer=_score_denial,
            **rules(name=TEXT, text=TEXT),
            description="A call of the Tool was denied with a reason containing the text.",
            examples=[{"kind": "tool_denial_contains", "name": "soul_write", "text": "CONFLICT"}],
        ),
        l3(
            struct=StaleWritesRefused,
            witness="store",
            scorer=_score_stale,
            seam=_a_worker_came_back,
            description=(
                "Every worker that came back holding a lease another claim had replaced was "
                "refused by the store's generation fence: none of its writes landed."
            ),
            examples=[{"kind": "stale_writes_refused"}],
        ),
        recorded(
            struct=HostRestarts,
            witness="host",
            scorer=_score_restarts,
            **rules(count=minimum(0)),
            description=(
                "The Host's process restarted exactly count times mid-Trial (after a retry wait, "
                "a worker's death), each time with a new database session: the Runs it picked "
                "up came back from what the database had committed."
            ),
            examples=[{"kind": "host_restarts", "count": 1}],
        ),
        soul(
            struct=SoulCommitted,
            scorer=_score_committed,
            **rules(path=TEXT, subject=TEXT),
            description=(
                "A commit in the Eval Soul repository touched the path (with subject: a commit "
                "that touched it has that subject line, read from the repository's log)."
            ),
            examples=[{"kind": "soul_committed", "path": "skills/bulb-storage/SKILL.md"}],
        ),
        soul(
            struct=SoulNotCommitted,
            scorer=_score_not_committed,
            **rules(path=TEXT),
            description="No commit in the Eval Soul repository touched the path.",
            examples=[{"kind": "soul_not_committed", "path": "agents/soul-author/AGENT.md"}],
        ),
        publication(
            struct=SoulPublished,
            scorer=partial(_score_published, True),
            description="The active Soul publication (after that Turn, or the last) holds it.",
            examples=[{"kind": "soul_published", "artifact": "Agent:soul-author"}],
        ),
        publication(
            struct=SoulNotPublished,
            scorer=partial(_score_published, False),
            description="The active Soul publication (after that Turn, or the last) lacks it.",
            examples=[{"kind": "soul_not_published", "artifact": "Skill:bulb-storage"}],
        ),
    ]


@hookimpl
def eval_witness_checks() -> list[WitnessCheck]:
    return [
        WitnessCheck("stale write refused but landed", refused_but_landed, reads=RunRecord),
        WitnessCheck("denied Soul write committed", denied_but_committed, reads=RunRecord),
        WitnessCheck("receipt names another model", receipt_names_another_model, reads=RunRecord),
    ]


@cache
def kind_names() -> frozenset[str]:
    """This family's kinds, built when a fixture first asks (not at import: 0.25 ms)."""
    return frozenset(spec.name for spec in eval_kinds())
