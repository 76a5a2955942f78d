"""Faults: a dependency broken on purpose, and the checkpoint replay it must survive.

- ``fault`` (L3) breaks a dependency before or during a Turn, through the Host's fault ports:
  ``context`` (context resolution fails), ``model`` (the model port throws
  ``model_not_configured``), ``model_after_checkpoint`` (the first pass parks on an approval
  checkpoint, is re-queued, then the model fails), ``model_output_limit`` (the runtime's
  completion guard sees finish reason ``length``) and ``worker_crash`` (the chat worker dies
  as it hands its second Tool call to the Tools, the first one's result checkpointed; the Host
  restarts and a new worker resumes the Run from its latest committed checkpoint).
- ``attemptHistory {text, toolCalls[{callId, name, outcome}]}`` (L3): the Turn's attempt already
  released ``text`` and finished these Tool calls in an earlier pass, which then stopped (its
  worker gone); the Trial drives the pass that follows, through the Host's prior-attempt port.
- ``checkpointCrash: "after_first_tool_result"`` (L2) fails the runtime's checkpoint write
  after the first result of a batch, through its checkpoint store's fault port; the runtime
  resumes on its own. ``tool_batch_replayed`` scores the :class:`ReplayRecord` read back: the
  first batch the runtime dispatched, every call it dispatched (its events), how often each
  effect really ran at the Tool, and the model calls sent against those the Turn accounts for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Literal, Protocol

import msgspec

from eval_core.kinds import (
    L2,
    L3,
    CaseBase,
    CaseField,
    Evidence,
    Expectation,
    FixtureError,
    FixtureRequest,
    KindSpec,
    LoadContext,
    Location,
    ToolCallsStep,
    ToolRef,
    TrialFixture,
    Verdict,
    failed,
    hookimpl,
    need,
    own_cases,
    passed,
    scorer,
)

Fault = Literal["context", "model", "model_after_checkpoint", "model_output_limit", "worker_crash"]
CheckpointCrash = Literal["after_first_tool_result"]


class CheckpointFaults(Protocol):
    """The fault port of the Host's checkpoint store (L2), and the effects its Tools saw."""

    def crash_after_first_tool_result(self) -> None: ...

    def crashed(self) -> bool: ...

    def effects(self) -> Mapping[str, int]: ...


class DependencyFaults(Protocol):
    """The fault ports of the Host's dependencies (L3): context service, model port, and the
    chat worker's process."""

    def fail_context(self) -> None: ...

    def unconfigure_model(self) -> None: ...

    def fail_model_after_requeue(self) -> None: ...

    def limit_output(self) -> None: ...

    def kill_worker(self) -> None: ...

    def fired(self) -> bool: ...


class PriorAttempts(Protocol):
    """The Host's port for an earlier pass of the Turn: what it released and which Tool calls
    it finished (``outcome`` ``ok`` or ``error``), before its worker went away."""

    def seed(self, text: str, tool_calls: list[tuple[str, str, str]]) -> None: ...


class PriorToolCall(msgspec.Struct, frozen=True, rename="camel"):
    call_id: str
    name: str
    outcome: Literal["ok", "error"]


class AttemptHistory(msgspec.Struct, frozen=True, rename="camel"):
    text: str = ""
    tool_calls: list[PriorToolCall] = msgspec.field(default_factory=list)


def _prior_tools(history: AttemptHistory) -> Iterator[ToolRef]:
    """The Tools the earlier pass called: the agent's own, checked at load like the script's."""
    for index, call in enumerate(history.tool_calls):
        yield ToolRef(f".toolCalls[{index}].name", call.name)


class ReplayRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What the crash and the runtime's own recovery did.

    ``batch``: call ids of the first batch the runtime dispatched; ``dispatched``: every call
    id the loop dispatched, in order, over both passes; ``effects``: how many times each
    call's effect really ran at the Tool; ``model_calls``: requests the binding sent over both
    passes; ``turn_model_calls``: the model calls the settled Turn accounts for.
    """

    crashed: bool
    batch: list[str]
    dispatched: list[str]
    effects: dict[str, int]
    model_calls: int
    turn_model_calls: int


class ToolBatchReplayed(Expectation, tag="tool_batch_replayed", frozen=True):
    pass


def _record(ev: Evidence) -> ReplayRecord | None:
    return ev.record(ReplayRecord)


@scorer
def _score_replayed(_e: ToolBatchReplayed, ev: Evidence) -> Verdict:
    record = need(
        _record(ev), "no checkpoint replay was read back (the Case needs checkpointCrash)"
    )
    if not record.crashed:
        return failed("the checkpoint crash never fired: no Tool result was checkpointed")
    batch = record.batch
    if len(batch) < 2:
        return failed(f"the crashed batch had {len(batch)} call(s); a replay needs at least 2")
    wanted = [batch[0], *batch]
    head = record.dispatched[: len(wanted)]
    if head != wanted:
        return failed(f"dispatched {head}, expected the batch replayed from its start: {wanted}")
    twice = {c: n for c, n in record.effects.items() if c in batch and n != 1}
    missing = [c for c in batch if c not in record.effects]
    if twice or missing:
        return failed(
            f"each effect must run once: ran {dict(sorted(twice.items()))}, never ran {missing}"
        )
    if record.model_calls != record.turn_model_calls:
        return failed(
            f"the retry called the model again: {record.model_calls} model call(s), the Turn "
            f"accounts for {record.turn_model_calls}"
        )
    return passed(
        f"batch {batch} replayed as {head}, each effect ran once, "
        f"{record.model_calls} model call(s) and no extra"
    )


def _batch_reached(_e: object, ev: Evidence) -> bool:
    """The seam: the runtime dispatched a batch of at least two calls to crash in."""
    record = _record(ev)
    return record is not None and len(record.batch) >= 2


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=ToolBatchReplayed,
            witness="tool",
            evidence_at=Location.record_of(ReplayRecord),
            scorer=_score_replayed,
            tiers=L2,
            seam=_batch_reached,
            description=(
                "After the checkpoint crash, the retry dispatched the batch again from its first "
                "call, ran each effect once and made no extra model call."
                " Needs `checkpointCrash`."
            ),
            examples=[{"kind": "tool_batch_replayed"}],
        )
    ]


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name="fault",
            type=Fault,
            tiers=L3,
            description="A dependency broken on purpose before or during the Turn.",
            examples=["model"],
        ),
        CaseField(
            name="attempt_history",
            type=AttemptHistory,
            tiers=L3,
            description="An earlier pass of the Turn's attempt: the text it released and the "
            "Tool calls it finished before its worker went away.",
            tool_names=_prior_tools,
            examples=[
                {
                    "text": "Ticket T-1042 shipped yesterday.",
                    "toolCalls": [
                        {"callId": "lookup-1042", "name": "lookup_ticket", "outcome": "ok"}
                    ],
                }
            ],
        ),
        CaseField(
            name="checkpoint_crash",
            type=CheckpointCrash,
            tiers=L2,
            description="Crash the checkpoint write after the first Tool result, then retry.",
            examples=["after_first_tool_result"],
        ),
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """checkpointCrash needs a first batch of two or more calls, and tool_batch_replayed, and
    tool_batch_replayed needs checkpointCrash."""
    problems: list[tuple[str, str]] = []
    crash = case.field("checkpoint_crash")
    replayed = [i for i, e in enumerate(case.expect) if e.kind_name == ToolBatchReplayed.kind_name]
    if crash is not None:
        first = case.script[0] if case.script else None
        if not isinstance(first, ToolCallsStep) or len(first.calls) < 2:
            problems.append(
                (
                    "$.script[0]",
                    "checkpointCrash needs the first script entry to be a batch of two or more "
                    "Tool calls",
                )
            )
        if not replayed:
            problems.append(
                ("$.checkpointCrash", "checkpointCrash requires a tool_batch_replayed Expectation")
            )
    elif replayed:
        problems.extend(
            (f"$.expect[{i}].kind", "tool_batch_replayed requires checkpointCrash")
            for i in replayed
        )
    return problems


def _crash(request: FixtureRequest) -> Iterator[None]:
    port = request.service(CheckpointFaults)
    port.crash_after_first_tool_result()
    yield
    ev = request.evidence
    events = ev.events or []
    batches = [e.payload.get("call_ids") for e in events if e.type == "tool.batch"]
    settled = [e.payload.get("modelCallCount") for e in events if e.type == "turn.finished"]
    request.record(
        ReplayRecord(
            crashed=port.crashed(),
            batch=[str(c) for c in batches[0]] if batches and batches[0] else [],
            dispatched=[str(e.payload.get("callId")) for e in events if e.type == "tool.call"],
            effects=dict(port.effects()),
            model_calls=len(ev.model_requests or ()),
            turn_model_calls=int(settled[-1] or 0) if settled else 0,
        )
    )


_INJECT = {
    "context": "fail_context",
    "model": "unconfigure_model",
    "model_after_checkpoint": "fail_model_after_requeue",
    "model_output_limit": "limit_output",
    "worker_crash": "kill_worker",
}


_NEVER_FIRED = {
    "context": "the runtime never asked the context service, so nothing failed",
    "model": "the runtime never called the model, so nothing failed",
    "model_after_checkpoint": (
        "the first pass never parked on an approval checkpoint, so there was nothing to "
        "resume before failing the model"
    ),
    "model_output_limit": "no text answer came back to cut at the output limit",
    "worker_crash": "the worker never handed a second Tool call to its Tools, so it never died",
}
"""Why a fault that never took effect proves nothing: the Trial errs instead of passing."""


def _fault(request: FixtureRequest) -> Iterator[None]:
    port = request.service(DependencyFaults)
    getattr(port, _INJECT[request.value])()
    yield
    ev = request.evidence
    if port.fired():
        ev.injected_fault = request.value
    elif request.value == "model_after_checkpoint" and (ev.loop_reason or "").startswith(
        "model_"
    ):  # a real model's outage before the checkpoint is a vendor failure, not this
        return
    else:
        raise FixtureError(f"fault {request.value}: {_NEVER_FIRED[request.value]}")


def _prior(request: FixtureRequest) -> Iterator[None]:
    history: AttemptHistory = request.value
    calls = [(c.call_id, c.name, str(c.outcome)) for c in history.tool_calls]
    if not history.text and not calls:
        raise FixtureError("attemptHistory: an earlier pass with no text and no Tool call")
    request.service(PriorAttempts).seed(history.text, calls)
    yield


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [
        TrialFixture(
            name="checkpoint-crash", field="checkpoint_crash", run=_crash, needs=(CheckpointFaults,)
        ),
        TrialFixture(name="fault", field="fault", run=_fault, needs=(DependencyFaults,)),
        TrialFixture(
            name="attempt-history", field="attempt_history", run=_prior, needs=(PriorAttempts,)
        ),
    ]
