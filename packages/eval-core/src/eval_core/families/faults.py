"""Faults: a dependency broken on purpose, and the checkpoint replay it must survive.

- ``fault`` (L3) breaks a dependency before or during a Turn: ``context`` (context resolution
  fails), ``model`` (the model port throws ``model_not_configured``), ``model_after_checkpoint``
  (the first pass parks on an approval checkpoint, is re-queued, then the model fails) and
  ``model_output_limit`` (the runtime's completion guard sees finish reason ``length``).
- ``checkpointCrash: "after_first_tool_result"`` (L2) crashes the checkpoint write after the
  first result of the first batch and retries the same input. ``tool_batch_replayed`` scores the
  retry from the :class:`ReplayRecord` the Host stores in ``evidence.records["checkpoint_replay"]``:
  the batch dispatched again from its first call, each effect run once, no extra model call.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from eval_core.case import CaseBase, CaseField, ToolCallsStep
from eval_core.evidence import Evidence
from eval_core.hookspecs import hookimpl
from eval_core.host import LoadContext
from eval_core.kinds import Expectation, KindSpec, Tier, Verdict, failed, passed

RECORD = "checkpoint_replay"
L2: frozenset[Tier] = frozenset({"l2"})
L3: frozenset[Tier] = frozenset({"l3"})
Fault = Literal["context", "model", "model_after_checkpoint", "model_output_limit"]
CheckpointCrash = Literal["after_first_tool_result"]


class ReplayRecord(msgspec.Struct, frozen=True, kw_only=True):
    """What the crash and its retry did.

    ``batch``: call ids of the crashed batch; ``dispatched``: every call id the loop dispatched,
    in order, over both passes; ``effects``: how many times each call's effect really ran;
    ``model_calls``: calls on the model port over both passes; ``turn_model_calls``: the model
    calls the settled Turn accounts for.
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
    record = ev.records.get(RECORD)
    return record if isinstance(record, ReplayRecord) else None


def _score_replayed(_e: ToolBatchReplayed, ev: Evidence) -> Verdict:
    record = _record(ev)
    if record is None:
        return failed("no checkpoint replay was observed (the Case needs checkpointCrash)")
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
    """The seam: a batch of at least two calls was there to crash in."""
    record = _record(ev)
    return record is not None and len(record.batch) >= 2


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=ToolBatchReplayed,
            scorer=_score_replayed,
            tiers=L2,
            seam=_batch_reached,
            description=(
                "After the checkpoint crash, the retry dispatched the batch again from its first "
                "call, ran each effect once and made no extra model call."
            ),
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
        ),
        CaseField(
            name="checkpoint_crash",
            type=CheckpointCrash,
            tiers=L2,
            description="Crash the checkpoint write after the first Tool result, then retry.",
        ),
    ]


@hookimpl
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
