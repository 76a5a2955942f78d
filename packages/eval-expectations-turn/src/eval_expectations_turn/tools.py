"""The tool-call family: which Tools the loop called, with what, in which batches, what it denied.

``evidence.tool_calls`` holds only the calls that reached the Tool; a call a gate refused is in
``evidence.denials`` instead. Arguments are whatever the model sent, so they are read with the
total helpers of :mod:`eval_core._util.paths`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eval_core.plugin import (
    DOT_PATH,
    NON_EMPTY,
    Denial,
    Evidence,
    Expectation,
    KindSpec,
    Problems,
    Tier,
    ToolCall,
    Verdict,
    at_least,
    deep_equal,
    dot_path,
    failed,
    hookimpl,
    non_empty,
    non_empty_list,
    passed,
    properties,
    quoted,
    render,
    resolve,
)

L2: frozenset[Tier] = frozenset({"l2"})
_NOT_OBSERVED = "tool calls not observed"


class ToolCalled(Expectation, tag="tool_called", frozen=True):
    name: str


class ToolNotCalled(Expectation, tag="tool_not_called", frozen=True):
    name: str


class ToolCallOrder(Expectation, tag="tool_call_order", frozen=True):
    names: list[str]


class ToolArgumentEquals(Expectation, tag="tool_argument_equals", frozen=True):
    name: str
    path: str
    value: Any


class ToolArgumentPresent(Expectation, tag="tool_argument_present", frozen=True):
    name: str
    path: str


class ToolArgumentAbsent(Expectation, tag="tool_argument_absent", frozen=True):
    name: str
    path: str


class ToolCallCount(Expectation, tag="tool_call_count", frozen=True):
    count: int
    name: str | None = None


class ToolCallsBatched(Expectation, tag="tool_calls_batched", frozen=True):
    min: int


class ToolDenied(Expectation, tag="tool_denied", frozen=True):
    name: str
    path: str
    value: Any


def _listing(calls: Sequence[ToolCall]) -> str:
    """Every call, in order: ``name(callId)``; or says there were none."""
    if not calls:
        return "no tool was called"
    shown = ", ".join(f"{c.name}({c.call_id})" for c in calls[:20])
    more = f", … {len(calls) - 20} more" if len(calls) > 20 else ""
    return f"called: {shown}{more}"


def _denied_note(name: str, denials: Sequence[Denial] | None) -> str:
    count = sum(1 for d in denials or [] if d.name == name)
    if not count:
        return ""
    return f" ({count} call{'s' if count != 1 else ''} of it denied before reaching the Tool)"


def _not_called(name: str, ev: Evidence, calls: Sequence[ToolCall]) -> str:
    return f"{quoted(name)} was not called{_denied_note(name, ev.denials)}; {_listing(calls)}"


def _of(name: str, calls: Sequence[ToolCall]) -> list[ToolCall]:
    return [c for c in calls if c.name == name]


def _score_called(e: ToolCalled, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot tell whether {quoted(e.name)} was called")
    mine = _of(e.name, ev.tool_calls)
    if mine:
        return passed(f"{quoted(e.name)} was called {len(mine)} time(s); {_listing(ev.tool_calls)}")
    return failed(_not_called(e.name, ev, ev.tool_calls))


def _score_not_called(e: ToolNotCalled, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot tell whether {quoted(e.name)} was called")
    mine = _of(e.name, ev.tool_calls)
    if mine:
        return failed(f"{quoted(e.name)} was called {len(mine)} time(s); {_listing(ev.tool_calls)}")
    return passed(_not_called(e.name, ev, ev.tool_calls))


def _score_order(e: ToolCallOrder, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot check the order {' → '.join(e.names)}")
    wanted = " → ".join(e.names)
    matched = 0
    for call in ev.tool_calls:
        if matched < len(e.names) and call.name == e.names[matched]:
            matched += 1
    if matched == len(e.names):
        return passed(f"{wanted} occur in order; {_listing(ev.tool_calls)}")
    return failed(
        f"{wanted} do not occur in order: {quoted(e.names[matched])} missing after "
        f"{matched} matched; {_listing(ev.tool_calls)}"
    )


def _found_at(calls: Sequence[ToolCall], path: str) -> list[tuple[ToolCall, bool, Any]]:
    return [(c, *resolve(c.arguments, path)) for c in calls]


def _values(found: list[tuple[ToolCall, bool, Any]], path: str) -> str:
    shown = [f"{c.call_id}: {render(v, 60) if ok else '(missing)'}" for c, ok, v in found[:10]]
    more = f"; … {len(found) - 10} more" if len(found) > 10 else ""
    return f"{path} per call: {'; '.join(shown)}{more}"


def _score_argument_equals(e: ToolArgumentEquals, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot read {e.name}.{e.path}")
    mine = _of(e.name, ev.tool_calls)
    if not mine:
        return failed(_not_called(e.name, ev, ev.tool_calls))
    found = _found_at(mine, e.path)
    for call, ok, value in found:
        if ok and deep_equal(value, e.value):
            return passed(f"call {call.call_id} of {quoted(e.name)} has {e.path} = {render(value)}")
    return failed(
        f"no call of {quoted(e.name)} has {e.path} = {render(e.value)}; {_values(found, e.path)}"
    )


def _score_argument_present(e: ToolArgumentPresent, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot read {e.name}.{e.path}")
    mine = _of(e.name, ev.tool_calls)
    if not mine:
        return failed(_not_called(e.name, ev, ev.tool_calls))
    found = _found_at(mine, e.path)
    for call, ok, value in found:
        if ok:
            return passed(f"call {call.call_id} of {quoted(e.name)} has {e.path} = {render(value)}")
    return failed(f"no call of {quoted(e.name)} has {e.path} ({len(mine)} call(s) looked at)")


def _score_argument_absent(e: ToolArgumentAbsent, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot read {e.name}.{e.path}")
    mine = _of(e.name, ev.tool_calls)
    if not mine:
        return failed(
            f"{quoted(e.name)} was not called{_denied_note(e.name, ev.denials)}, so the absence of "
            f"{e.path} was not exercised; {_listing(ev.tool_calls)}"
        )
    found = _found_at(mine, e.path)
    present = [(c, v) for c, ok, v in found if ok]
    if present:
        call, value = present[0]
        return failed(
            f"{len(present)} of {len(mine)} call(s) of {quoted(e.name)} have {e.path}; "
            f"call {call.call_id}: {render(value)}"
        )
    return passed(f"none of {len(mine)} call(s) of {quoted(e.name)} has {e.path}")


def _score_count(e: ToolCallCount, ev: Evidence) -> Verdict:
    if ev.tool_calls is None:
        return failed(f"{_NOT_OBSERVED}; cannot count them (expected {e.count})")
    counted = ev.tool_calls if e.name is None else _of(e.name, ev.tool_calls)
    of = "" if e.name is None else f" of {quoted(e.name)}"
    detail = f"{len(counted)} tool call(s){of}, expected {e.count}; {_listing(ev.tool_calls)}"
    return passed(detail) if len(counted) == e.count else failed(detail)


def _score_batched(e: ToolCallsBatched, ev: Evidence) -> Verdict:
    batches = ev.tool_batches
    if batches is None:
        return failed(f"tool batches not observed; cannot find a batch of {e.min} or more")
    sizes = [len(b) for b in batches]
    largest = max(sizes, default=0)
    shown = "; ".join("[" + ", ".join(map(str, b)) + "]" for b in batches[:10]) or "none"
    detail = f"largest batch had {largest} call(s), needed at least {e.min}; batches: {shown}"
    return passed(detail) if largest >= e.min else failed(detail)


def _score_denied(e: ToolDenied, ev: Evidence) -> Verdict:
    if ev.denials is None:
        return failed(f"denials not observed; cannot find a denial of {quoted(e.name)}")
    mine = [d for d in ev.denials if d.name == e.name]
    if not mine:
        others = ", ".join(sorted({d.name for d in ev.denials})) or "none"
        return failed(f"no call of {quoted(e.name)} was denied; denied Tools: {others}")
    looked: list[str] = []
    for denial in mine:
        ok, value = resolve(denial.arguments, e.path)
        if ok and deep_equal(value, e.value):
            return passed(
                f"call {denial.call_id} of {quoted(e.name)} with {e.path} = {render(value)} "
                f"was denied by {denial.source}: {quoted(denial.reason, 120)}"
            )
        looked.append(f"{denial.call_id}: {render(value, 60) if ok else '(missing)'}")
    return failed(
        f"no denial of {quoted(e.name)} has {e.path} = {render(e.value)}; "
        f"{e.path} per denial: {'; '.join(looked[:10])}"
    )


def _check_name(e: ToolCalled | ToolNotCalled, _case: object) -> Problems:
    return non_empty(e.name, ".name")


def _check_name_path(
    e: ToolArgumentEquals | ToolArgumentPresent | ToolArgumentAbsent | ToolDenied, _case: object
) -> Problems:
    return non_empty(e.name, ".name") + dot_path(e.path)


def _check_names(e: ToolCallOrder, _case: object) -> Problems:
    if not e.names:
        return [(".names", "must be a non-empty list of Tool names")]
    problems: Problems = []
    for index, name in enumerate(e.names):
        problems += non_empty(name, f".names[{index}]")
    return problems


def _check_count(e: ToolCallCount, _case: object) -> Problems:
    problems: Problems = [(".count", "must be an integer ≥ 0")] if e.count < 0 else []
    if e.name is not None:
        problems += non_empty(e.name, ".name")
    return problems


def _check_min(e: ToolCallsBatched, _case: object) -> Problems:
    return [(".min", "must be an integer ≥ 2 (a batch of one is not a batch)")] if e.min < 2 else []


@hookimpl
def eval_kinds() -> list[KindSpec]:
    return [
        KindSpec(
            struct=ToolCalled,
            witness="tool",
            scorer=_score_called,
            check=_check_name,
            json_schema=properties(name=NON_EMPTY),
            description="The Tool was called (the call reached the Tool).",
        ),
        KindSpec(
            struct=ToolNotCalled,
            witness="tool",
            scorer=_score_not_called,
            check=_check_name,
            json_schema=properties(name=NON_EMPTY),
            seam_independent=True,
            description="No call of the Tool reached it.",
        ),
        KindSpec(
            struct=ToolCallOrder,
            witness="tool",
            scorer=_score_order,
            check=_check_names,
            json_schema=properties(names=non_empty_list(NON_EMPTY)),
            description="The names occur, in order, as a subsequence of the Tools called.",
        ),
        KindSpec(
            struct=ToolArgumentEquals,
            witness="tool",
            scorer=_score_argument_equals,
            check=_check_name_path,
            json_schema=properties(name=NON_EMPTY, path=DOT_PATH),
            description="Some call of the Tool has the value at the argument path (deep equality).",
        ),
        KindSpec(
            struct=ToolArgumentPresent,
            witness="tool",
            scorer=_score_argument_present,
            check=_check_name_path,
            json_schema=properties(name=NON_EMPTY, path=DOT_PATH),
            description="Some call of the Tool has the argument path.",
        ),
        KindSpec(
            struct=ToolArgumentAbsent,
            witness="tool",
            scorer=_score_argument_absent,
            check=_check_name_path,
            json_schema=properties(name=NON_EMPTY, path=DOT_PATH),
            description="The Tool was called, and no call of it has the argument path.",
        ),
        KindSpec(
            struct=ToolCallCount,
            witness="tool",
            scorer=_score_count,
            check=_check_count,
            json_schema=properties(count=at_least(0), name=NON_EMPTY),
            description="Exactly this many calls reached a Tool, or the Tool named by the "
            "optional name (meant for 0); detail lists them.",
        ),
        KindSpec(
            struct=ToolCallsBatched,
            witness="binding",
            scorer=_score_batched,
            tiers=L2,
            check=_check_min,
            json_schema=properties(min=at_least(2)),
            description="The largest batch of calls in one model response (as the binding "
            "received it) had at least min calls.",
        ),
        KindSpec(
            struct=ToolDenied,
            witness="events",
            scorer=_score_denied,
            tiers=L2,
            check=_check_name_path,
            json_schema=properties(name=NON_EMPTY, path=DOT_PATH),
            description="A call of the Tool with the value at the argument path was denied.",
        ),
    ]
