"""Every built-in scorer and check is total: arbitrary Evidence, arbitrary valid Expectations,
always a Verdict with a detail, never an exception."""

from __future__ import annotations

from typing import Any, get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import (
    Denial,
    Evidence,
    GuardDecision,
    GuardStage,
    ModelRequest,
    ToolCall,
)
from eval_core._case.kinds import Expectation, KindSpec, Verdict
from eval_expectations_turn import guardrails, output, prompt, status, tools
from turn_scoring import Scoring

SPECS: dict[type[Expectation], KindSpec] = {
    spec.struct: spec
    for module in (prompt, output, tools, guardrails, status)
    for spec in module.eval_kinds()
}
NAMES = ["ledger_read", "web_fetch", "send_email", ""]
STAGES = list(get_args(GuardStage))
GUARDS = list(get_args(guardrails.GuardName))

texts = st.text(max_size=30) | st.sampled_from(["{", "}", "```json\n", '{"a": 1}', "[1, [2]]"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=15,
)
paths = st.sampled_from(["$", "a", "a.b", "a.0", "$.a.0.b", "0", "", "a..b", "$."]) | st.text(
    max_size=8
)
names = st.sampled_from(NAMES)


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``None`` (not observed) or a value."""
    return st.none() | strategy


calls = st.builds(
    ToolCall,
    call_id=st.text(max_size=4),
    name=names,
    arguments=json_values,
    turn_index=st.integers(),
)
denials = st.builds(
    Denial,
    call_id=st.text(max_size=4),
    name=names,
    arguments=json_values,
    reason=st.text(max_size=20),
    source=st.text(max_size=8),
)
decisions = st.builds(
    GuardDecision,
    stage=st.sampled_from(STAGES),
    guard=st.sampled_from([*GUARDS, "other"]),
    blocked=st.booleans(),
    detail=st.text(max_size=20),
)
messages = st.one_of(
    json_values,
    st.fixed_dictionaries({"role": st.just("user"), "content": texts | json_values}),
)
requests = st.builds(
    ModelRequest,
    system=texts,
    messages=st.lists(messages, max_size=3),
    tools=st.lists(names, max_size=2),
)
evidence = st.builds(
    Evidence,
    tier=st.sampled_from(["l2", "l3"]),
    system_prompt=maybe(texts),
    model_requests=maybe(st.lists(requests, max_size=3)),
    model_calls=maybe(st.integers(min_value=0, max_value=5)),
    output_text=maybe(texts),
    output_structured=json_values,
    output_kind=maybe(st.sampled_from(["text", "structured", "tool_calls", "none"])),
    tool_calls=maybe(st.lists(calls, max_size=5)),
    tool_batches=maybe(st.lists(st.lists(st.text(max_size=3), max_size=4), max_size=4)),
    denials=maybe(st.lists(denials, max_size=3)),
    guard_decisions=maybe(st.lists(decisions, max_size=5)),
    loop_status=maybe(st.sampled_from(["completed", "failed", "iteration_limit"])),
    loop_reason=maybe(st.text(max_size=20)),
)

FIELD_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "text": texts,
    "pattern": texts | st.sampled_from([r"\d+", "(", "[a-", "a|b", ""]),
    "ungrounded": maybe(st.text(max_size=10)),
    "path": paths,
    "value": json_values,
    "name": names,
    "names": st.lists(names, min_size=1, max_size=4),
    "texts": st.lists(texts, min_size=0, max_size=4),
    "roles": st.lists(st.sampled_from(["user", "assistant", "tool", "bot"]), max_size=4),
    "count": st.integers(min_value=0, max_value=6),
    "turn_index": maybe(st.integers(min_value=0, max_value=3)),
    "min": st.integers(min_value=2, max_value=6),
    "stage": st.sampled_from(STAGES),
    "guard": st.sampled_from(GUARDS),
    "detail": maybe(texts),
    "status": st.sampled_from(["completed", "failed", "x"]),
    "reason": maybe(st.sampled_from(["iteration_limit", "tool_call_limit", "x"])),
}


def _expectation_strategy(struct: type[Expectation]) -> st.SearchStrategy[Expectation]:
    fields = {name: FIELD_STRATEGIES[name] for name in struct.__struct_fields__}
    return st.builds(struct, **fields)


expectations = st.one_of([_expectation_strategy(struct) for struct in SPECS])


def test_every_field_has_a_strategy() -> None:
    for struct in SPECS:
        assert set(struct.__struct_fields__) <= set(FIELD_STRATEGIES), struct


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expectations, evidence)
def test_every_scorer_is_total(e: Expectation, observed: Evidence) -> None:
    verdict = SPECS[type(e)].scorer(e, observed)
    assert isinstance(verdict, Verdict)
    assert isinstance(verdict.passed, bool)
    assert verdict.detail.strip()


@settings(max_examples=300)
@given(expectations)
def test_every_check_is_total(e: Expectation) -> None:
    Scoring(SPECS).check_total(e)


@settings(max_examples=300)
@given(expectations)
def test_nothing_observed_never_passes(e: Expectation) -> None:
    verdict = SPECS[type(e)].scorer(e, Evidence(tier="l2"))
    assert not verdict.passed
    assert verdict.detail.strip()
