"""Entry point of the native family: the ``nativeRoutine`` field and ``native_admission_equals``.

A ``nativeRoutine`` Case exercises native-channel admission only: it is L3, carries only
``native_admission_equals`` and no other plug-in's fixture, no Tools and no Tool results,
because no chat Turn runs and anything else would be scored against nothing.
"""

from __future__ import annotations

from typing import Any

from eval_core.kinds import (
    DOT_PATH,
    L3,
    CaseBase,
    CaseField,
    Evidence,
    Expectation,
    KindSpec,
    LoadContext,
    Location,
    Problems,
    TrialFixture,
    Verdict,
    deep_equal,
    dot_path,
    failed,
    hookimpl,
    json_name,
    need,
    non_empty,
    own_cases,
    path_segments,
    properties,
    render,
    resolve,
    scorer,
)
from eval_expectations_native.channel import FIXTURE
from eval_expectations_native.fixture import NativeRoutine
from eval_expectations_native.observation import FIELDS, NativeAdmission, as_plain, observation_of

FIELD = "native_routine"
KIND = "native_admission_equals"
_GENERIC = frozenset(CaseBase.__struct_fields__)
_SCRIPTED_LISTS = (("tools", "$.tools"), ("platform_tools", "$.platformTools"))


class NativeAdmissionEquals(Expectation, tag=KIND, frozen=True):
    path: str
    value: Any


@scorer
def _score(e: NativeAdmissionEquals, ev: Evidence) -> Verdict:
    observation, why = observation_of(ev)
    found, value = resolve(as_plain(need(observation, f"{why}; cannot read {e.path}")), e.path)
    if not found:
        return failed(f"the native admission has no {e.path}; expected {render(e.value)}")
    detail = f"native admission {e.path} = {render(value)}, expected {render(e.value)}"
    return Verdict(deep_equal(value, e.value), detail)


def _check(e: NativeAdmissionEquals, _case: object) -> Problems:
    problems = dot_path(e.path)
    segments = path_segments(e.path) if not problems else None
    if segments and segments[0] not in FIELDS:
        known = ", ".join(sorted(FIELDS))
        problems.append(
            (".path", f"unknown native admission field {segments[0]!r}; known: {known}")
        )
    return problems


def _plugin_fields(case: CaseBase) -> list[str]:
    """The Python names of the plug-in fields this Case sets (generic fields excluded)."""
    return [
        name
        for name in type(case).__struct_fields__
        if name not in _GENERIC and name != FIELD and getattr(case, name, None) is not None
    ]


@hookimpl
@own_cases
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """A nativeRoutine Case exercises admission alone; native_admission_equals needs one."""
    block = case.field(FIELD)
    problems: list[tuple[str, str]] = []
    if block is None:
        for index, e in enumerate(case.expect):
            if isinstance(e, NativeAdmissionEquals):
                problems.append((f"$.expect[{index}].kind", f"{KIND!r} needs 'nativeRoutine'"))
        return problems
    assert isinstance(block, NativeRoutine)
    for suffix, problem in non_empty(block.destination, ".destination") + non_empty(
        block.account_id, ".accountId"
    ):
        problems.append((f"$.nativeRoutine{suffix}", problem))
    for index, e in enumerate(case.expect):
        if not isinstance(e, NativeAdmissionEquals):
            problems.append(
                (
                    f"$.expect[{index}].kind",
                    f"a 'nativeRoutine' Case carries only {KIND!r}, not {e.kind_name!r}",
                )
            )
    for name in _plugin_fields(case):
        problems.append(
            (f"$.{json_name(name)}", f"a 'nativeRoutine' Case may not carry {json_name(name)!r}")
        )
    for attr, path in (*_SCRIPTED_LISTS, ("tool_results", "$.toolResults")):
        if getattr(case, attr):
            problems.append((path, f"a 'nativeRoutine' Case runs no Tool; drop {path[2:]!r}"))
    return problems


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name=FIELD,
            type=NativeRoutine,
            tiers=L3,
            description=(
                "A native event for a destination from an account, admitted from the durable "
                "inbox; fault: lease_lost | route_changed | account_revoked | account_unknown | "
                "claimed_again | claim_revoked."
            ),
            examples=[{"destination": "eval/native#42", "accountId": "approved-native-account"}],
            runs_model=False,
        )
    ]


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=NativeAdmissionEquals,
            witness="store",
            evidence_at=Location.record_of(NativeAdmission),
            scorer=_score,
            tiers=L3,
            check=_check,
            json_schema=properties(path=DOT_PATH),
            seam_independent=True,
            description=(
                "The native admission observation (runCount, stateCount, artifactCount, "
                "invocationCount, run, stateStatus, request, accountId, inboxRunId, "
                "inboxCorrelated, error, errorMessage, inboxStatus) has the value at the path."
                " Needs `nativeRoutine`."
            ),
            examples=[{"kind": "native_admission_equals", "path": "run", "value": None}],
        )
    ]


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [FIXTURE]
