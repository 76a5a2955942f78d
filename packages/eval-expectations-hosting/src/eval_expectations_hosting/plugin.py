"""Entry point of the hosting family: ``hostingAuthority`` and ``safetyHostingAuthority`` (L2).

``hostingAuthority`` says who hosts the Soul repository: the business itself (``independent``)
or the platform (``tulipfarm``, the spec's name for it). The runtime's Tool gate then decides
``soul_repo_push``: on a platform-hosted repository it is denied before any executor, on an
independent one it goes through. So the Case names the Tool among its ``platformTools`` and
never scripts its result: the gate, not the Case, decides it.

``safetyHostingAuthority`` says whether the Soul runs on the platform (``tulipfarm``), under
the platform's safety floor unioned with the Soul's own guardrails, or on its own
(``independent``).

Nothing here is scored on its own: the existing kinds read what the runtime did (``tool_denied``
and ``tool_called`` from its event stream, ``guardrail_blocked``/``guardrail_allowed`` from its
guard decisions, ``output_omits`` from the answer it settled).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Literal, Protocol

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

REPOSITORY = "hosting_authority"
SAFETY = "safety_hosting_authority"
PUSH = "soul_repo_push"

Authority = Literal["independent", "tulipfarm"]
HOSTS: dict[str, str] = {"independent": "independent", "tulipfarm": "platform"}
"""The Case's names for who hosts (the spec's) -> the runtime's."""


class SoulHosting(Protocol):
    """The Host's say in who hosts the Soul repository and whose safety floor applies:
    ``independent`` or ``platform``."""

    def host_repository(self, host: str) -> None: ...

    def host_safety(self, host: str) -> None: ...


def _repository(request: FixtureRequest) -> Iterator[None]:
    request.service(SoulHosting).host_repository(HOSTS[request.value])
    yield


def _safety(request: FixtureRequest) -> Iterator[None]:
    request.service(SoulHosting).host_safety(HOSTS[request.value])
    yield


@hookimpl
def eval_case_fields() -> list[CaseField]:
    authority = partial(CaseField, type=Authority, tiers=L2)
    return [
        authority(
            name=REPOSITORY,
            description=(
                "Who hosts the Soul repository: independent (the business) or tulipfarm (the "
                "platform, which denies soul_repo_push). Needs soul_repo_push, unscripted."
            ),
            examples=["tulipfarm"],
        ),
        authority(
            name=SAFETY,
            description=(
                "Whether the Soul runs on the platform (tulipfarm), under its safety floor "
                "unioned with the Soul's guardrails, or on its own (independent)."
            ),
            examples=["tulipfarm"],
        ),
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """A hostingAuthority Case offers soul_repo_push and leaves its answer to the gate."""
    if case.field(REPOSITORY) is None:
        return []
    problems: list[tuple[str, str]] = []
    if PUSH not in case.platform_tools:
        problems.append(
            (
                "$.platformTools",
                f"a 'hostingAuthority' Case names the platform Tool {PUSH!r}: the hosting gate "
                "decides it",
            )
        )
    for index, result in enumerate(case.tool_results):
        if result.name == PUSH:
            problems.append(
                (
                    f"$.toolResults[{index}].name",
                    f"{PUSH!r} is never scripted in a 'hostingAuthority' Case: the runtime's "
                    "hosting gate decides it",
                )
            )
    return problems


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [
        TrialFixture(name="soul-repository-host", field=REPOSITORY, run=_repository,
                     needs=(SoulHosting,)),
        TrialFixture(name="safety-host", field=SAFETY, run=_safety, needs=(SoulHosting,)),
    ]  # fmt: skip
