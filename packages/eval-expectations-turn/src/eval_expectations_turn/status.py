"""The status family: how the tool loop ended."""

from __future__ import annotations

from eval_core.plugin import (
    NON_EMPTY,
    Evidence,
    Expectation,
    KindSpec,
    Problems,
    Verdict,
    failed,
    hookimpl,
    non_empty,
    passed,
    properties,
    quoted,
)


class LoopStatus(Expectation, tag="loop_status", frozen=True):
    status: str
    reason: str | None = None
    """When given, the loop's reason too (``iteration_limit``, ``tool_call_limit``...)."""


def _score_loop_status(e: LoopStatus, ev: Evidence) -> Verdict:
    if ev.loop_status is None:
        return failed(f"loop status not observed; expected {quoted(e.status)}")
    reason = f" (reason: {quoted(ev.loop_reason, 160)})" if ev.loop_reason else ""
    wanted = quoted(e.status) + ("" if e.reason is None else f" ({quoted(e.reason)})")
    if ev.loop_status == e.status and (e.reason is None or ev.loop_reason == e.reason):
        return passed(f"loop ended {quoted(ev.loop_status)}{reason}")
    return failed(f"loop ended {quoted(ev.loop_status)}{reason}, expected {wanted}")


def _check_status(e: LoopStatus, _case: object) -> Problems:
    problems = non_empty(e.status, ".status")
    if e.reason is not None:
        problems += non_empty(e.reason, ".reason")
    return problems


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=LoopStatus,
            witness="answer",
            scorer=_score_loop_status,
            check=_check_status,
            json_schema=properties(status=NON_EMPTY, reason=NON_EMPTY),
            seam_independent=True,
            description=(
                "The tool loop ended with this status (a limit is 'failed'), and with this "
                "reason when one is given (iteration_limit, tool_call_limit, "
                "repair_budget_exhausted...)."
            ),
        ),
    ]
