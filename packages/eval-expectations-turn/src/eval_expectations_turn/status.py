"""The status family: how the tool loop ended."""

from __future__ import annotations

from eval_core.checks import NON_EMPTY, Problems, non_empty, properties
from eval_core.evidence import Evidence
from eval_core.hookspecs import hookimpl
from eval_core.kinds import Expectation, KindSpec, Verdict, failed, passed
from eval_core.paths import quoted


class LoopStatus(Expectation, tag="loop_status", frozen=True):
    status: str


def _score_loop_status(e: LoopStatus, ev: Evidence) -> Verdict:
    if ev.loop_status is None:
        return failed(f"loop status not observed; expected {quoted(e.status)}")
    reason = f" (reason: {quoted(ev.loop_reason, 160)})" if ev.loop_reason else ""
    if ev.loop_status == e.status:
        return passed(f"loop ended {quoted(ev.loop_status)}{reason}")
    return failed(f"loop ended {quoted(ev.loop_status)}{reason}, expected {quoted(e.status)}")


def _check_status(e: LoopStatus, _case: object) -> Problems:
    return non_empty(e.status, ".status")


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=LoopStatus,
            scorer=_score_loop_status,
            check=_check_status,
            json_schema=properties(status=NON_EMPTY),
            seam_independent=True,
            description="The tool loop ended with this status (the detail gives its reason).",
        ),
    ]
