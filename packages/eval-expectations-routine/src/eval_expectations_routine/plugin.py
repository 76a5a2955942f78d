"""Entry point of the routine family: the ``routine`` field (L3, runs no model), its load
rules, its fixture and the kind ``state_output_equals``."""

from __future__ import annotations

from eval_core.case import CaseBase, CaseField
from eval_core.fixtures import TrialFixture
from eval_core.hookspecs import hookimpl, own_cases
from eval_core.host import LoadContext
from eval_core.kinds import KindSpec, Tier
from eval_expectations_routine.block import FIELD, RoutineBlock, block_problems, case_problems
from eval_expectations_routine.kind import StateOutputEquals, check, score
from eval_expectations_routine.setup import FIXTURE

L3: frozenset[Tier] = frozenset({"l3"})


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name=FIELD,
            type=RoutineBlock,
            tiers=L3,
            runs_model=False,
            description=(
                "A Routine run with no model: {definition, toolContract, guardrail?, inputs?, "
                "providerSteps, approval?, crashAfter?}."
            ),
        )
    ]


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=StateOutputEquals,
            witness="store",
            scorer=score,
            tiers=L3,
            check=check,
            seam_independent=True,
            description="The Routine's captured output has the value at the path ($: all of it).",
        )
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    block = case.field(FIELD)
    if block is None:
        return [
            (f"$.expect[{i}].kind", "'state_output_equals' needs 'routine'")
            for i, e in enumerate(case.expect)
            if isinstance(e, StateOutputEquals)
        ]
    assert isinstance(block, RoutineBlock)
    return [*block_problems(block), *case_problems(case)]


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [FIXTURE]
