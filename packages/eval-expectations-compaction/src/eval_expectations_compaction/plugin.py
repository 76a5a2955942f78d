"""Entry point of the compaction family: the ``contextTokenBudget`` field (L2).

A positive budget, in tokens, of what the model is sent: over it, the runtime must compact the
conversation before the model call. ``model_prompt_contains`` (the prompt family) then reads
the last request as the binding sent it, after compaction; nothing here is scored on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from eval_core.kinds import (
    L2,
    CaseBase,
    CaseField,
    FixtureRequest,
    LoadContext,
    TrialFixture,
    hookimpl,
    own_cases,
)

FIELD = "context_token_budget"


class ContextBudget(Protocol):
    """The Host's budget of what the model is sent in a Turn."""

    def limit(self, tokens: int) -> None: ...


def _budget(request: FixtureRequest) -> Iterator[None]:
    request.service(ContextBudget).limit(request.value)
    yield


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name=FIELD,
            type=int,
            tiers=L2,
            description="A positive token budget of each model request; over it, compaction.",
            examples=[50],
        )
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    budget = case.field(FIELD)
    if budget is not None and budget < 1:
        return [("$.contextTokenBudget", "must be a positive number of tokens")]
    return []


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [TrialFixture(name="context-budget", field=FIELD, run=_budget, needs=(ContextBudget,))]
