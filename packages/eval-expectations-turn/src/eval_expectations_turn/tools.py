"""The tool-call family: which Tools the loop called, with what, in which batches, what it denied.

``evidence.tool_calls`` holds only the calls that reached the Tool; a call a gate refused is in
``evidence.denials`` instead. Arguments are whatever the model sent, so they are read with the
total helpers of :mod:`eval_core._util.paths`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from eval_core.kinds import (
    L2,
    NON_EMPTY,
    PATH,
    TEXT,
    Claim,
    Denial,
    Evidence,
    Expectation,
    KindSpec,
    Location,
    Problems,
    ToolCall,
    Verdict,
    absent,
    failed,
    first_equal,
    hookimpl,
    minimum,
    need,
    non_empty,
    non_empty_list,
    passed,
    present,
    properties,
    quoted,
    render,
    resolve,
    rules,
    scorer,
    values_at,
)

_NOT_OBSERVED = "tool calls not observed"


class _OfTool(Expectation, frozen=True):
    name: str


class _AtPath(_OfTool, frozen=True):
    path: str


class ToolCalled(_OfTool, tag="tool_called", frozen=True): ...


class ToolNotCalled(_OfTool, tag="tool_not_called", frozen=True): ...


class ToolCallOrder(Expectation, tag="tool_call_order", frozen=True):
    names: list[str]


class ToolArgumentEquals(_AtPath, tag="tool_argument_equals", frozen=True):
    value: Any


class ToolArgumentPresent(_AtPath, tag="tool_argument_present", frozen=True): ...


class ToolArgumentAbsent(_AtPath, tag="tool_argument_absent", frozen=True): ...


class ToolCallCount(Expectation, tag="tool_call_count", frozen=True):
    count: int
    name: str | None = None
    turn_index: int | None = None
    """Only the calls the Tool received in this Turn of a journey (the Host's own count of
    Turns, not the runtime's record); a Turn past the Case's last is refused at load."""


class ToolCallsBatched(Expectation, tag="tool_calls_batched", frozen=True):
    min: int


class ToolDenied(_AtPath, tag="tool_denied", frozen=True):
    value: Any


def _listing(calls: Sequence[ToolCall], turns: bool = False) -> str:
    """Every call, in order: ``name(callId)`` (``name(callId, Turn n)`` with ``turns``); or
    says there were none."""
    if not calls:
        return "no tool was called"
    shown = ", ".join(
        f"{c.name}({c.call_id}, Turn {c.turn_index})" if turns else f"{c.name}({c.call_id})"
        for c in calls[:20]
    )
    more = f", … {len(calls) - 20} more" if len(calls) > 20 else ""
    return f"called: {shown}{more}"


def _denied_note(name: str, denials: Sequence[Denial] | None) -> str:
    count = sum(1 for d in denials or [] if d.name == name)
    if not count:
        return ""
    return f" ({count} call{'s' if count != 1 else ''} of it denied before reaching the Tool)"


def _not_called(name: str, ev: Evidence, calls: Sequence[ToolCall], so: str = "") -> str:
    """The Tool was not called (its denied calls counted), ``so`` what that means, and every
    call that was made."""
    return f"{quoted(name)} was not called{_denied_note(name, ev.denials)}{so}; {_listing(calls)}"


def _of(name: str, calls: Sequence[ToolCall]) -> list[ToolCall]:
    return [c for c in calls if c.name == name]


def _arguments(call: ToolCall | Denial) -> Any:
    return call.arguments


def _call_id(call: ToolCall | Denial) -> str:
    return call.call_id


@scorer
def _score_called(claim: Claim, e: _OfTool, ev: Evidence) -> Verdict:
    """``tool_called`` (``present``) and ``tool_not_called`` (``absent``)."""
    calls = ev.tool_calls
    if calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot tell whether {quoted(e.name)} was called")
    mine = _of(e.name, calls)
    if not mine:  # the "otherwise" line is read only when nothing was found: made only then
        return claim(None, _not_called(e.name, ev, calls), None)
    hit = f"{quoted(e.name)} was called {len(mine)} time(s); {_listing(calls)}"
    return claim(hit, "", Location.call_at(mine[0]))  # at the first call of it


@scorer
def _score_order(e: ToolCallOrder, ev: Evidence) -> Verdict:
    calls = need(ev.tool_calls, f"{_NOT_OBSERVED}; cannot check the order {' → '.join(e.names)}")
    wanted = " → ".join(e.names)
    matched = 0
    for call in calls:
        if matched < len(e.names) and call.name == e.names[matched]:
            matched += 1
    if matched == len(e.names):
        return passed(f"{wanted} occur in order; {_listing(calls)}")
    return failed(
        f"{wanted} do not occur in order: {quoted(e.names[matched])} missing after "
        f"{matched} matched; {_listing(calls)}"
    )


def _called(e: _AtPath, ev: Evidence, so: str = "") -> list[ToolCall]:
    """The calls of the Tool, or the scorer fails: calls not observed, or none of it (``so``:
    what that means for the kind)."""
    calls = need(ev.tool_calls, f"{_NOT_OBSERVED}; cannot read {e.name}.{e.path}")
    mine = _of(e.name, calls)
    return mine if mine else need(None, _not_called(e.name, ev, calls, so))  # said only then


@scorer
def _score_argument_equals(e: ToolArgumentEquals, ev: Evidence) -> Verdict:
    mine = _called(e, ev)
    hit = first_equal(mine, _arguments, e.path, e.value)
    if hit is not None:
        call, value = hit
        return passed(
            f"call {call.call_id} of {quoted(e.name)} has {e.path} = {render(value)}",
            Location.call_at(call),
        )
    shown = "; ".join(values_at(mine[:10], _arguments, e.path, _call_id))
    more = f"; … {len(mine) - 10} more" if len(mine) > 10 else ""
    return failed(
        f"no call of {quoted(e.name)} has {e.path} = {render(e.value)}; "
        f"{e.path} per call: {shown}{more}"
    )


@scorer
def _score_argument_present(e: ToolArgumentPresent, ev: Evidence) -> Verdict:
    mine = _called(e, ev)
    for call in mine:
        ok, value = resolve(call.arguments, e.path)
        if ok:
            return passed(
                f"call {call.call_id} of {quoted(e.name)} has {e.path} = {render(value)}",
                Location.call_at(call),
            )
    return failed(f"no call of {quoted(e.name)} has {e.path} ({len(mine)} call(s) looked at)")


@scorer
def _score_argument_absent(e: ToolArgumentAbsent, ev: Evidence) -> Verdict:
    mine = _called(e, ev, f", so the absence of {e.path} was not exercised")
    present = [(c, v) for c in mine for ok, v in [resolve(c.arguments, e.path)] if ok]
    if present:
        call, value = present[0]
        return failed(
            f"{len(present)} of {len(mine)} call(s) of {quoted(e.name)} have {e.path}; "
            f"call {call.call_id}: {render(value)}",
            Location.call_at(call),
        )
    return passed(f"none of {len(mine)} call(s) of {quoted(e.name)} has {e.path}")


@scorer
def _score_count(e: ToolCallCount, ev: Evidence) -> Verdict:
    calls = need(ev.tool_calls, f"{_NOT_OBSERVED}; cannot count them (expected {e.count})")
    counted = calls if e.name is None else _of(e.name, calls)
    of = "" if e.name is None else f" of {quoted(e.name)}"
    if e.turn_index is not None:
        counted = [c for c in counted if c.turn_index == e.turn_index]
        of += f" in Turn {e.turn_index}"
    listed = _listing(calls, turns=e.turn_index is not None)
    detail = f"{len(counted)} tool call(s){of}, expected {e.count}; {listed}"
    return Verdict(len(counted) == e.count, detail)


@scorer
def _score_batched(e: ToolCallsBatched, ev: Evidence) -> Verdict:
    why = f"tool batches not observed; cannot find a batch of {e.min} or more"
    batches = need(ev.tool_batches, why)
    largest = max((len(b) for b in batches), default=0)
    shown = "; ".join("[" + ", ".join(map(str, b)) + "]" for b in batches[:10]) or "none"
    detail = f"largest batch had {largest} call(s), needed at least {e.min}; batches: {shown}"
    return Verdict(largest >= e.min, detail)


@scorer
def _score_denied(e: ToolDenied, ev: Evidence) -> Verdict:
    denials = need(ev.denials, f"denials not observed; cannot find a denial of {quoted(e.name)}")
    mine = [d for d in denials if d.name == e.name]
    if not mine:
        others = ", ".join(sorted({d.name for d in denials})) or "none"
        return failed(f"no call of {quoted(e.name)} was denied; denied Tools: {others}")
    hit = first_equal(mine, _arguments, e.path, e.value)
    if hit is not None:
        denial, value = hit
        return passed(
            f"call {denial.call_id} of {quoted(e.name)} with {e.path} = {render(value)} "
            f"was denied by {denial.source}: {quoted(denial.reason, 120)}"
        )
    looked = values_at(mine, _arguments, e.path, _call_id)
    return failed(
        f"no denial of {quoted(e.name)} has {e.path} = {render(e.value)}; "
        f"{e.path} per denial: {'; '.join(looked[:10])}"
    )


def _check_names(e: ToolCallOrder, _case: object) -> Problems:
    if not e.names:
        return [(".names", "must be a non-empty list of Tool names")]
    problems: Problems = []
    for index, name in enumerate(e.names):
        problems += non_empty(name, f".names[{index}]")
    return problems


@hookimpl
def eval_kinds() -> list[KindSpec]:
    # every kind here but tool_calls_batched names a Tool: the loader checks it is the agent's
    tool = partial(KindSpec, witness="tool", evidence_at=Location.TOOL_CALLS, tool_fields=("name",))
    named, at_path = rules(name=TEXT), rules(name=TEXT, path=PATH)
    return [
        tool(
            struct=ToolCalled,
            scorer=partial(_score_called, present),
            **named,
            description="The Tool was called (the call reached the Tool).",
            examples=[{"kind": "tool_called", "name": "skill"}],
        ),
        tool(
            struct=ToolNotCalled,
            scorer=partial(_score_called, absent),
            **named,
            seam_independent=True,
            description="No call of the Tool reached it.",
            examples=[{"kind": "tool_not_called", "name": "skill"}],
        ),
        tool(
            struct=ToolCallOrder,
            scorer=_score_order,
            tool_fields=("names",),
            check=_check_names,
            json_schema=properties(names=non_empty_list(NON_EMPTY)),
            description="The names occur, in order, as a subsequence of the Tools called.",
            examples=[{"kind": "tool_call_order", "names": ["lookup_order", "refund_order"]}],
        ),
        tool(
            struct=ToolArgumentEquals,
            scorer=_score_argument_equals,
            **at_path,
            description="Some call of the Tool has the value at the argument path (deep equality).",
            examples=[
                {
                    "kind": "tool_argument_equals",
                    "name": "api_request",
                    "path": "method",
                    "value": "GET",
                }
            ],
        ),
        tool(
            struct=ToolArgumentPresent,
            scorer=_score_argument_present,
            **at_path,
            description="Some call of the Tool has the argument path.",
            examples=[{"kind": "tool_argument_present", "name": "refund_order", "path": "reason"}],
        ),
        tool(
            struct=ToolArgumentAbsent,
            scorer=_score_argument_absent,
            **at_path,
            description="The Tool was called, and no call of it has the argument path.",
            examples=[{"kind": "tool_argument_absent", "name": "route_ticket", "path": "priority"}],
        ),
        tool(
            struct=ToolCallCount,
            scorer=_score_count,
            **rules(count=minimum(0), name=TEXT, turn_index=minimum(1)),
            description="Exactly this many calls reached a Tool, or the Tool named by the "
            "optional name (meant for 0), in the optional turnIndex's Turn of a journey (else "
            "in all its Turns); detail lists them.",
            examples=[{"kind": "tool_call_count", "count": 0}],
        ),
        KindSpec(
            struct=ToolCallsBatched,
            witness="binding",
            evidence_at=Location.TOOL_CALLS,
            scorer=_score_batched,
            tiers=L2,
            **rules(min=minimum(2, "a batch of one is not a batch")),
            description="The largest batch of calls in one model response (as the binding "
            "received it) had at least min calls.",
            examples=[{"kind": "tool_calls_batched", "min": 2}],
        ),
        KindSpec(
            struct=ToolDenied,
            tool_fields=("name",),
            witness="events",
            evidence_at=Location.DENIALS,
            scorer=_score_denied,
            tiers=L2,
            **at_path,
            description="A call of the Tool with the value at the argument path was denied.",
            examples=[{"kind": "tool_denied", "name": "soul_repo_push", "path": "$", "value": {}}],
        ),
    ]
