"""Entry point of the routine family: the ``routine`` field (L3, runs no model) and the
``toolProvider`` field (a chat Tool served by the same loopback provider), their load rules and
fixtures, the kinds ``state_output_equals`` and ``routine_worker_crashes``, the provider-log
kinds and their witness checks."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from eval_core.kinds import (
    L3,
    CaseBase,
    CaseField,
    KindSpec,
    LoadContext,
    Location,
    TrialFixture,
    WitnessCheck,
    hookimpl,
    minimum,
    own_cases,
    rules,
)
from eval_expectations_routine import provider_log
from eval_expectations_routine.block import (
    FIELD,
    TOOL_PROVIDER,
    RetryStep,
    RoutineBlock,
    ToolProvider,
    block_problems,
    case_problems,
    tool_provider_problems,
)
from eval_expectations_routine.canonical import CanonicalError
from eval_expectations_routine.kind import (
    RoutineWorkerCrashes,
    StateOutputEquals,
    check,
    score,
    score_crashes,
)
from eval_expectations_routine.setup import FIXTURE, TOOL_PROVIDER_FIXTURE, RoutineRecord

_LOG_KINDS = (
    provider_log.ToolProviderEffects,
    provider_log.ToolProviderRequests,
    provider_log.ToolProviderUntouchedBeforeApproval,
    provider_log.ToolProviderRetryAfterHonoured,
)


def _contracted(block: RoutineBlock) -> Iterator[str]:
    """The Tool the Routine calls (its contract's): a Tool the Case's names may name. A block
    that does not resolve adds none; its own check says why."""
    try:
        yield block.resolved().tool_contract.name
    except CanonicalError:
        return


@hookimpl
def eval_case_fields() -> list[CaseField]:
    durable = partial(CaseField, tiers=L3)
    return [
        durable(
            name=FIELD,
            type=RoutineBlock,
            runs_model=False,
            description=(
                "A Routine run with no model: {definition, toolContract, guardrail?, inputs?, "
                "providerSteps, approval?, crashAfter?}."
            ),
            offers_tools=_contracted,
            examples=[
                {
                    "definition": {
                        "slug": "nightly-refunds",
                        "inputs": {"orderId": {"type": "string"}, "amount": {"type": "number"}},
                        "states": [
                            {
                                "key": "refund",
                                "type": "tool",
                                "tool": "issue_refund",
                                "arguments": {
                                    "orderId": {"$from": "inputs.orderId"},
                                    "amount": {"$from": "inputs.amount"},
                                },
                            }
                        ],
                    },
                    "toolContract": {
                        "name": "issue_refund",
                        "description": "Pays a refund back to the original payment method.",
                        "inputSchema": {
                            "type": "object",
                            "properties": {
                                "orderId": {"type": "string"},
                                "amount": {"type": "number"},
                            },
                            "required": ["orderId", "amount"],
                        },
                        "mutating": True,
                    },
                    "inputs": {"orderId": "4471", "amount": 12.5},
                    "providerSteps": [{"kind": "success", "output": {"refunded": True}}],
                }
            ],
        ),
        durable(
            name=TOOL_PROVIDER,
            type=ToolProvider,
            description=(
                "A Tool the Case declares, served by a provider on loopback that answers call "
                "after call as providerSteps say: {tool, providerSteps}."
            ),
            examples=[
                {
                    "tool": "send_slack_message",
                    "providerSteps": [
                        {"kind": "retry", "retryAfterMs": 3000, "code": "rate_limited"},
                        {"kind": "success", "output": {"ts": "1714583.000200"}},
                    ],
                }
            ],
        ),
    ]


@hookimpl
def eval_kinds() -> list[KindSpec]:
    at = Location.record_of(RoutineRecord)
    routine = partial(KindSpec, tiers=L3, evidence_at=at, seam_independent=True)
    return [
        routine(
            struct=StateOutputEquals,
            witness="store",
            scorer=score,
            check=check,
            description="The Routine's captured output has the value at the path ($: all of it)."
            " Needs `routine`.",
            examples=[{"kind": "state_output_equals", "path": "receiptId", "value": "rcpt-7781"}],
        ),
        routine(
            struct=RoutineWorkerCrashes,
            witness="host",
            scorer=score_crashes,
            **rules(count=minimum(0)),
            description=(
                "Exactly count of the Routine's workers died at the fault port (crashAfter), as "
                "the Host caught each one's death."
                " Needs `routine`."
            ),
            examples=[{"kind": "routine_worker_crashes", "count": 1}],
        ),
        *provider_log.kinds(),
    ]


def _kind_problems(case: CaseBase) -> Iterator[tuple[str, str]]:
    routine = case.field(FIELD)
    served = case.field(TOOL_PROVIDER)
    steps = (
        routine.provider_steps
        if isinstance(routine, RoutineBlock)
        else served.provider_steps
        if isinstance(served, ToolProvider)
        else None
    )
    for index, e in enumerate(case.expect):
        where = f"$.expect[{index}].kind"
        if isinstance(e, StateOutputEquals) and routine is None:
            yield where, "'state_output_equals' needs 'routine'"
        elif isinstance(e, RoutineWorkerCrashes) and routine is None:
            yield where, "'routine_worker_crashes' needs 'routine'"
        elif isinstance(e, _LOG_KINDS) and steps is None:
            yield (
                where,
                (
                    f"{e.kind_name!r} reads a Tool provider's log: it needs 'routine' or "
                    "'toolProvider'"
                ),
            )
        elif isinstance(e, provider_log.ToolProviderUntouchedBeforeApproval) and not (
            isinstance(routine, RoutineBlock) and _requires_approval(routine)
        ):
            yield (
                where,
                (
                    f"{e.kind_name!r} needs a 'routine' whose Tool requires an approval "
                    "(toolContract.requiresApproval)"
                ),
            )
        elif isinstance(e, provider_log.ToolProviderRetryAfterHonoured) and not any(
            isinstance(step, RetryStep) for step in steps or ()
        ):
            yield where, f"{e.kind_name!r} needs a provider step that asks for a retry"


def _requires_approval(block: RoutineBlock) -> bool:
    try:
        return block.resolved().tool_contract.requires_approval
    except CanonicalError:
        return False  # the block's own problem, said by block_problems


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    problems = list(_kind_problems(case))
    block = case.field(FIELD)
    if isinstance(block, RoutineBlock):
        problems += [*block_problems(block), *case_problems(case)]
    served = case.field(TOOL_PROVIDER)
    if isinstance(served, ToolProvider):
        problems += tool_provider_problems(served, case)
    return problems


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [FIXTURE, TOOL_PROVIDER_FIXTURE]


@hookimpl
def eval_witness_checks() -> list[WitnessCheck]:
    return list(provider_log.CHECKS)
