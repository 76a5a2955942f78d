"""The status family: how the tool loop ended."""

from __future__ import annotations

from eval_core.kinds import (
    TEXT,
    Evidence,
    Expectation,
    KindSpec,
    Location,
    Verdict,
    failed,
    hookimpl,
    passed,
    quoted,
    rules,
    scorer,
)


class LoopStatus(Expectation, tag="loop_status", frozen=True):
    status: str
    reason: str | None = None
    """When given, the loop's reason too (``iteration_limit``, ``tool_call_limit``...)."""


@scorer
def _score_loop_status(e: LoopStatus, ev: Evidence) -> Verdict:
    status = ev.loop_status
    if status is None:
        return failed(f"loop status not observed; expected {quoted(e.status)}")
    reason = f" (reason: {quoted(ev.loop_reason, 160)})" if ev.loop_reason else ""
    ended = f"loop ended {quoted(status)}{reason}"
    if status == e.status and (e.reason is None or ev.loop_reason == e.reason):
        return passed(ended)
    wanted = quoted(e.status) + ("" if e.reason is None else f" ({quoted(e.reason)})")
    return failed(f"{ended}, expected {wanted}")


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=LoopStatus,
            witness="answer",
            evidence_at=Location.ANSWER,
            scorer=_score_loop_status,
            **rules(status=TEXT, reason=TEXT),
            seam_independent=True,
            description=(
                "The tool loop ended with this status (a limit is 'failed'), and with this "
                "reason when one is given (iteration_limit, tool_call_limit, "
                "repair_budget_exhausted...)."
            ),
            examples=[{"kind": "loop_status", "status": "failed"}],
        ),
    ]
