"""The Tool provider's own log, and the kinds and witness checks that read it.

A Tool the runtime reaches through a provider (a Routine's Tool State, a chat Tool a Case
serves with ``toolProvider``) is witnessed by that provider: each request as it arrived, what
it answered (the effect applied, or a wait asked for), when it arrived on the Trial's clock,
and, for a Routine, how many requests it had served each time the approver granted an
approval. The runtime's events are its testimony; these kinds never read them, and the witness
checks hold them against this log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

import msgspec

from eval_core.kinds import (
    L3,
    TEXT,
    Evidence,
    Expectation,
    KindSpec,
    Location,
    Verdict,
    WitnessCheck,
    failed,
    minimum,
    need,
    passed,
    quoted,
    rules,
    scorer,
)

_NO_LOG = "no Tool provider's log was read back (the Case needs 'routine' or 'toolProvider')"


class ProviderRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One request as the provider received it. ``applied``: it applied the effect; else it
    answered 429 asking for ``retry_after_ms``. ``at``: when it arrived, on the Trial's clock
    (``None`` when the Host offers no clock)."""

    tool: str
    call_id: str
    key: str
    arguments: Any = None
    applied: bool
    retry_after_ms: int | None = None
    at: float | None = None


class ProviderLog(msgspec.Struct, frozen=True, kw_only=True):
    """The provider's requests in arrival order. ``grants``: how many requests it had received
    at each approval the approver granted (``None`` where nobody grants: a chat Tool)."""

    requests: list[ProviderRequest]
    grants: list[int] | None = None


def call_id_of(key: str) -> str:
    """The call an idempotency key names: a Routine's is ``<state id>:effect``."""
    return key.partition(":")[0]


def _log(ev: Evidence, cannot: str) -> ProviderLog:
    """The provider's log, or the scorer fails: none was read back, and what it ``cannot`` do."""
    return need(ev.record(ProviderLog), f"{_NO_LOG}; {cannot}")


def _mine(log: ProviderLog, tool: str | None) -> list[ProviderRequest]:
    return [r for r in log.requests if tool is None or r.tool == tool]


def _of(tool: str | None) -> str:
    return f" for {quoted(tool)}" if tool is not None else ""


def _listing(requests: Sequence[ProviderRequest]) -> str:
    if not requests:
        return "the provider received no request"
    shown = ", ".join(
        f"{r.tool}({r.call_id}: {'applied' if r.applied else f'retry {r.retry_after_ms} ms'})"
        for r in requests[:10]
    )
    more = f", … {len(requests) - 10} more" if len(requests) > 10 else ""
    return f"received: {shown}{more}"


# -- kinds --------------------------------------------------------------------------------------


class _Counted(Expectation, frozen=True):
    count: int
    tool: str | None = None


class ToolProviderEffects(_Counted, tag="tool_provider_effects", frozen=True): ...


class ToolProviderRequests(_Counted, tag="tool_provider_requests", frozen=True): ...


class ToolProviderUntouchedBeforeApproval(
    Expectation, tag="tool_provider_untouched_before_approval", frozen=True
):
    pass


class ToolProviderRetryAfterHonoured(
    Expectation, tag="tool_provider_retry_after_honoured", frozen=True
):
    pass


@scorer
def score_effects(e: ToolProviderEffects, ev: Evidence) -> Verdict:
    """Effects applied are counted by the provider: a resume that applies one again shows."""
    mine = _mine(_log(ev, "cannot count its effects"), e.tool)
    applied = sum(1 for r in mine if r.applied)
    done = f"the provider applied the effect{_of(e.tool)} {applied} time(s)"
    return Verdict(applied == e.count, f"{done}, expected {e.count}; {_listing(mine)}")


@scorer
def score_requests(e: ToolProviderRequests, ev: Evidence) -> Verdict:
    """Every request that reached the provider, whatever it answered: a call a guard blocked
    must never get there."""
    mine = _mine(_log(ev, "cannot count the requests it received"), e.tool)
    received = f"the provider received {len(mine)} request(s){_of(e.tool)}"
    return Verdict(len(mine) == e.count, f"{received}, expected {e.count}; {_listing(mine)}")


@scorer
def score_untouched(_e: ToolProviderUntouchedBeforeApproval, ev: Evidence) -> Verdict:
    """The provider's log set against the approver's grants: nothing before the first."""
    log = _log(ev, "cannot tell what reached it before an approval")
    if log.grants is None:
        return failed("nobody grants approvals for this provider's Tool: nothing to wait for")
    first = log.grants[0] if log.grants else len(log.requests)
    early = log.requests[:first]
    if early:
        when = "before the approver granted" if log.grants else "and no approval was granted"
        return failed(f"the provider received {len(early)} request(s) {when}; {_listing(early)}")
    if log.grants:
        return passed(
            f"the approver granted {len(log.grants)} approval(s) before the provider received "
            f"anything; then {_listing(log.requests)}"
        )
    return passed("no approval was granted and the provider received no request")


@scorer
def score_retry_after(_e: ToolProviderRetryAfterHonoured, ev: Evidence) -> Verdict:
    """Each wait the provider asked for, against when the same call came back (Trial clock)."""
    log = _log(ev, "cannot tell when its calls came back")
    asked = [(i, r) for i, r in enumerate(log.requests) if not r.applied]
    if not asked:
        return failed(f"the provider never asked for a wait; {_listing(log.requests)}")
    followed: list[str] = []
    early: list[str] = []
    for index, request in asked:
        again = next((r for r in log.requests[index + 1 :] if r.call_id == request.call_id), None)
        if again is None:
            continue
        if request.at is None or again.at is None or request.retry_after_ms is None:
            return failed("the provider's log has no arrival times (no Trial clock)")
        waited = (again.at - request.at) * 1000
        line = f"{request.call_id}: asked {request.retry_after_ms} ms, came back after "
        line += f"{waited:.0f} ms"
        (early if waited < request.retry_after_ms else followed).append(line)
    if early:
        return failed(f"{len(early)} call(s) came back before the wait asked: {'; '.join(early)}")
    if not followed:
        return failed(
            f"the provider asked for a wait {len(asked)} time(s) and no call came back: "
            "nothing shows a wait honoured"
        )
    return passed(f"every call came back no sooner than asked: {'; '.join(followed[:5])}")


def kinds() -> list[KindSpec]:
    provider = partial(
        KindSpec,
        witness="provider",
        evidence_at=Location.record_of(ProviderLog),
        tiers=L3,
        seam_independent=True,
    )
    counted = partial(provider, **rules(count=minimum(0), tool=TEXT), tool_fields=("tool",))
    return [
        counted(
            struct=ToolProviderEffects,
            scorer=score_effects,
            description="The Tool's provider applied its effect exactly count times, by its log."
            " Needs `routine` or `toolProvider`.",
            examples=[{"kind": "tool_provider_effects", "count": 1}],
        ),
        counted(
            struct=ToolProviderRequests,
            scorer=score_requests,
            description="The Tool's provider received exactly count requests, by its log."
            " Needs `routine` or `toolProvider`.",
            examples=[{"kind": "tool_provider_requests", "count": 0}],
        ),
        provider(
            struct=ToolProviderUntouchedBeforeApproval,
            scorer=score_untouched,
            description=(
                "No request reached the Routine's Tool provider before the approver granted "
                "its approval (or at all, when none was granted)."
                " Needs a `routine` whose Tool requires an approval."
            ),
            examples=[{"kind": "tool_provider_untouched_before_approval"}],
        ),
        provider(
            struct=ToolProviderRetryAfterHonoured,
            scorer=score_retry_after,
            description=(
                "Each call the provider asked to retry later came back no sooner than the wait "
                "it asked for, on the Trial's clock; at least one came back."
                " Needs `routine` or `toolProvider` with a provider step that asks for a retry."
            ),
            examples=[{"kind": "tool_provider_retry_after_honoured"}],
        ),
    ]


# -- witness checks -----------------------------------------------------------------------------


def effects_not_recorded(ev: Evidence) -> Iterable[str]:
    """The runtime's successful results of a Tool against the effects its provider applied."""
    log = ev.record(ProviderLog)
    if log is None or ev.tool_results is None:
        return
    for tool in sorted({r.tool for r in log.requests}):
        applied = sum(1 for r in log.requests if r.tool == tool and r.applied)
        said = sum(1 for r in ev.tool_results if r.name == tool and r.status == "succeeded")
        if applied != said:
            yield (
                f"the runtime recorded {said} successful result(s) of {quoted(tool)}; its "
                f"provider applied the effect {applied} time(s)"
            )


def reached_before_approval(ev: Evidence) -> Iterable[str]:
    """A call the runtime says waits on an approval, which its provider received before any."""
    log = ev.record(ProviderLog)
    if log is None or log.grants is None or ev.events is None:
        return
    waiting = {
        str(e.payload.get("callId"))
        for e in ev.events
        if e.type == "approval.requested" and isinstance(e.payload, dict)
    }
    first = log.grants[0] if log.grants else len(log.requests)
    for request in log.requests[:first]:
        if request.call_id in waiting:
            yield (
                f"the runtime recorded call {request.call_id} of {quoted(request.tool)} as "
                "waiting on an approval; its provider received it before any was granted"
            )


def received_not_dispatched(ev: Evidence) -> Iterable[str]:
    """A request the provider received for a call the runtime's record never dispatched."""
    log = ev.record(ProviderLog)
    said = ev.testimony.tool_calls if ev.testimony is not None else None
    if log is None or said is None:
        return
    dispatched = {c.call_id for c in said}
    for call_id in dict.fromkeys(r.call_id for r in log.requests if r.call_id not in dispatched):
        tool = next(r.tool for r in log.requests if r.call_id == call_id)
        yield (
            f"the runtime recorded no dispatch of call {call_id}; its provider received "
            f"{quoted(tool)} for it"
        )


CHECKS = [
    WitnessCheck("provider effects not recorded", effects_not_recorded, reads=ProviderLog),
    WitnessCheck("provider reached before approval", reached_before_approval, reads=ProviderLog),
    WitnessCheck(
        "provider received an undispatched call", received_not_dispatched, reads=ProviderLog
    ),
]
