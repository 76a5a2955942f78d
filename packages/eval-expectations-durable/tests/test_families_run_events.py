"""The run-events family and tool_batch_replayed: hand-built Evidence, then totality.

Every scorer reads only what an L3 Host stores in ``evidence.records``; a missing record,
Turn or observation fails with a reason.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import Denial, Evidence, ToolCall, ToolResult
from eval_core._case.evidence import Event as RunEvent
from eval_core._case.kinds import Expectation, KindSpec, Verdict
from eval_core._running.scoring import unexercised
from eval_core.records import (
    ActivePublication,
    PersistedMessage,
    SoulCommit,
    StaleWrite,
    TurnRecord,
)
from eval_expectations_durable import faults, run_events
from eval_expectations_durable.faults import ReplayRecord, ToolBatchReplayed
from eval_expectations_durable.run_events import (
    HostRestarts,
    PersistedMessageMetadataEquals,
    RunEventEmitted,
    RunEventFieldEquals,
    RunEventNotEmitted,
    RunEventTextOmits,
    RunRecord,
    RunStatus,
    SoulCommitted,
    SoulNotPublished,
    SoulPublished,
    StaleWritesRefused,
    StateStatus,
    ToolDenialContains,
    ToolResultFieldEquals,
    ToolResultReasonContains,
    TurnStatus,
)
from turn_scoring import Scoring

SPECS: dict[type[Expectation], KindSpec] = {
    spec.struct: spec for module in (run_events, faults) for spec in module.eval_kinds()
}


def turn(index: int, run: str | None, turn_status: str | None = "x") -> TurnRecord:
    status = run if turn_status == "x" else turn_status
    return TurnRecord(
        turn_index=index, run_id=f"r{index}", run_status=run, state_status=run,
        turn_status=status, reason=None if run == "succeeded" else "repair_budget_exhausted",
    )  # fmt: skip


def delta(index: int, text: str, participant: str = "participant") -> RunEvent:
    return RunEvent(
        turn_index=index, seq=1, type="text.delta", participant=participant, payload={"text": text}
    )


def with_record(record: RunRecord, **fields: Any) -> Evidence:
    evidence = Evidence(tier="l3", **fields)
    evidence.put(record)
    return evidence


def score(e: Expectation, ev: Evidence) -> Verdict:
    return SPECS[type(e)].scorer(e, ev)


def test_statuses_fold_to_the_first_turn_that_did_not_succeed() -> None:
    ev = with_record(
        RunRecord(turns=[turn(1, "succeeded"), turn(2, "failed"), turn(3, "succeeded")])
    )
    assert score(RunStatus(status="failed"), ev).passed
    assert score(RunStatus(status="succeeded", turn_index=3), ev).passed
    assert not score(RunStatus(status="succeeded"), ev).passed
    assert score(StateStatus(status="failed", turn_index=2), ev).passed
    verdict = score(TurnStatus(status="succeeded", turn_index=4), ev)
    assert not verdict.passed and "Turn 4 was not stored" in verdict.detail


def test_all_succeeded_folds_to_the_last_turn() -> None:
    ev = with_record(RunRecord(turns=[turn(1, "succeeded"), turn(2, "succeeded")]))
    verdict = score(RunStatus(status="succeeded"), ev)
    assert verdict.passed and "Turn 2 (folded)" in verdict.detail


def test_a_turn_that_never_completed_reads_not_completed() -> None:
    ev = with_record(RunRecord(turns=[turn(1, "running", None)]))
    verdict = score(TurnStatus(status="succeeded"), ev)
    assert not verdict.passed and '"not completed"' in verdict.detail


def test_event_counts_are_exact_and_positive() -> None:
    events = [
        RunEvent(turn_index=1, seq=i, type="approval.granted", participant="operator")
        for i in (1, 2)
    ]
    ev = with_record(RunRecord(events=events))
    assert score(RunEventEmitted(event_type="approval.granted", count=2), ev).passed
    assert not score(RunEventEmitted(event_type="approval.granted", count=1), ev).passed
    assert score(RunEventEmitted(event_type="approval.granted"), ev).passed
    assert not score(RunEventEmitted(event_type="text.delta"), ev).passed


def test_an_event_not_emitted_is_read_from_a_record_and_names_the_turns_that_had_one() -> None:
    events = [
        RunEvent(turn_index=2, seq=1, type="approval.granted", participant="operator"),
        RunEvent(turn_index=2, seq=2, type="tool.call", participant="participant"),
    ]
    ev = with_record(RunRecord(events=events))
    assert score(RunEventNotEmitted(event_type="approval.requested"), ev).passed
    granted = score(RunEventNotEmitted(event_type="approval.granted"), ev)
    assert not granted.passed
    assert granted.detail.startswith('1 durable "approval.granted" event(s) (Turn 2)')
    assert score(RunEventNotEmitted(event_type="tool.call", audience="operator"), ev).passed
    assert not score(RunEventNotEmitted(event_type="tool.call", audience="participant"), ev).passed
    unread = score(RunEventNotEmitted(event_type="approval.granted"), Evidence(tier="l3"))
    assert not unread.passed  # no record read: nothing observed, never an absence


def test_an_audience_counts_only_the_events_filed_for_it_and_names_who_got_them() -> None:
    events = [
        RunEvent(turn_index=1, seq=1, type="turn.started", participant="operator"),
        RunEvent(turn_index=1, seq=2, type="tool.call", participant="participant"),
    ]
    ev = with_record(RunRecord(events=events))
    shown = score(RunEventEmitted(event_type="turn.started", audience="participant"), ev)
    assert not shown.passed
    assert shown.detail.startswith(
        'no durable "turn.started" event for the participant; "turn.started" filed for: operator'
    ), shown.detail
    assert score(
        RunEventEmitted(event_type="turn.started", audience="operator", count=1), ev
    ).passed
    assert score(RunEventEmitted(event_type="tool.call", audience="participant"), ev).passed


def test_text_omits_reads_the_joined_participant_stream_casefolded() -> None:
    record = RunRecord(events=[delta(1, "Card 4111 "), delta(1, "1111 1111 1111."), delta(2, "ok")])
    ev = with_record(record, output_text="nothing here")
    assert not score(RunEventTextOmits(text="4111 1111 1111 1111"), ev).passed
    assert score(RunEventTextOmits(text="DHL"), ev).passed
    assert not score(RunEventTextOmits(text="OK"), ev).passed  # casefold


def test_text_omits_fails_without_participant_text() -> None:
    only_runtime = RunRecord(events=[delta(1, "secret", participant="operator")])
    verdict = score(RunEventTextOmits(text="anything"), with_record(only_runtime))
    assert not verdict.passed and "no durable participant text.delta" in verdict.detail


def test_event_field_reads_the_payload_path_of_any_event_of_that_type() -> None:
    decision = {"stage": "input", "reason": "prompt_injection:encoded_instruction"}
    events = [
        RunEvent(turn_index=1, seq=1, type="guardrail.checked", payload={"reason": "x"}),
        RunEvent(turn_index=1, seq=2, type="guardrail.decision", payload=decision),
    ]
    ev = with_record(RunRecord(events=events))
    typed = "guardrail.decision"
    reason = decision["reason"]
    assert score(RunEventFieldEquals(event_type=typed, path="reason", value=reason), ev).passed
    verdict = score(RunEventFieldEquals(event_type=typed, path="reason", value="x"), ev)
    assert not verdict.passed and "#2: " in verdict.detail  # only events of that type are read
    verdict = score(RunEventFieldEquals(event_type=typed, path="missing", value=None), ev)
    assert not verdict.passed and "(missing)" in verdict.detail
    none = score(RunEventFieldEquals(event_type="x.y", path="reason", value="x"), ev)
    assert not none.passed and "no durable" in none.detail


def test_message_metadata_reads_any_assistant_message() -> None:
    record = RunRecord(
        messages=[
            PersistedMessage(turn_index=1, role="user", metadata={"historyMessages": 3}),
            PersistedMessage(turn_index=2, role="assistant", metadata={"historyMessages": 3}),
        ]
    )
    assert score(
        PersistedMessageMetadataEquals(path="historyMessages", value=3), with_record(record)
    ).passed
    assert not score(
        PersistedMessageMetadataEquals(path="historyMessages", value=5), with_record(record)
    ).passed
    user_only = RunRecord(messages=[PersistedMessage(turn_index=1, role="user", metadata={"a": 1})])
    assert not score(
        PersistedMessageMetadataEquals(path="a", value=1), with_record(user_only)
    ).passed


RESULTS = [
    ToolResult(call_id="c1", name="soul_write", arguments={"slug": "a"}, status="succeeded",
               output={"path": "skills/a/SKILL.md"}, turn_index=1),
    ToolResult(call_id="c2", name="soul_write", arguments={"slug": "b"}, status="failed",
               reason="committed Skill:b but not published: bad", turn_index=2),
]  # fmt: skip


def _field(value: str, turn_index: int | None = None) -> ToolResultFieldEquals:
    return ToolResultFieldEquals(
        name="soul_write",
        argument_path="slug",
        argument_value="a",
        status="succeeded",
        output_path="path",
        value=value,
        turn_index=turn_index,
    )


def _reason(status: str, text: str) -> ToolResultReasonContains:
    return ToolResultReasonContains(
        name="soul_write", argument_path="slug", argument_value="b", status=status, text=text
    )


@pytest.mark.parametrize(
    ("expectation", "ok"),
    [
        (_field("skills/a/SKILL.md"), True),
        (_field("x", turn_index=1), False),
        (_field("skills/a/SKILL.md", turn_index=2), False),
        (_reason("failed", "not published"), True),
        (_reason("succeeded", "not published"), False),
        (_reason("failed", "NOT published"), False),
    ],
)
def test_tool_results_are_targeted_by_argument_status_and_turn(
    expectation: Expectation, ok: bool
) -> None:
    assert score(expectation, Evidence(tier="l3", tool_results=RESULTS)).passed is ok


def test_denial_reason_is_an_exact_substring() -> None:
    ev = Evidence(
        tier="l3",
        denials=[
            Denial(
                call_id="c",
                name="soul_write",
                arguments={},
                reason="agent x may not rewrite its own definition",
                source="tool",
            )
        ],
    )
    assert score(ToolDenialContains(name="soul_write", text="may not rewrite"), ev).passed
    assert not score(ToolDenialContains(name="soul_write", text="May not"), ev).passed
    assert not score(ToolDenialContains(name="other", text="may not"), ev).passed


def test_soul_kinds_read_commits_and_the_active_publication_per_turn() -> None:
    record = RunRecord(
        commits=[SoulCommit(turn_index=2, sha="abc", paths=["skills/a/SKILL.md"], subject="add a")],
        publications=[
            ActivePublication(turn_index=1, commit="base", artifacts=["Agent:x"]),
            ActivePublication(turn_index=2, commit="abc", artifacts=["Agent:x", "Skill:a"]),
        ],
    )
    ev = with_record(record)
    assert score(SoulCommitted(path="skills/a/SKILL.md"), ev).passed
    assert not score(SoulCommitted(path="skills/b/SKILL.md"), ev).passed
    assert score(SoulCommitted(path="skills/a/SKILL.md", subject="add a"), ev).passed
    missed = score(SoulCommitted(path="skills/a/SKILL.md", subject="add b"), ev)
    assert not missed.passed and 'abc: "add a"' in missed.detail
    assert score(SoulNotPublished(artifact="Skill:a", turn_index=1), ev).passed
    assert score(SoulPublished(artifact="Skill:a", turn_index=2), ev).passed
    assert score(SoulPublished(artifact="Skill:a"), ev).passed
    assert not score(SoulNotPublished(artifact="Skill:a"), ev).passed
    assert not score(SoulNotPublished(artifact="Skill:a", turn_index=3), ev).passed


def test_soul_seam_is_unreached_only_until_soul_write_is_called() -> None:
    spec = SPECS[SoulPublished]
    failing = [(SoulPublished(artifact="Skill:a"), spec)]
    never = with_record(RunRecord(), tool_calls=[])
    assert unexercised(failing, never) is not None
    called = with_record(
        RunRecord(), tool_calls=[ToolCall(call_id="c", name="soul_write", arguments={})]
    )
    assert not score(SoulPublished(artifact="Skill:a"), called).passed
    assert unexercised(failing, called) is None  # once called, a missing artifact fails


def late(raised: bool, *landed: str) -> StaleWrite:
    return StaleWrite(turn_index=1, raised=raised, landed=list(landed), detail="stale generation")


def test_stale_writes_are_scored_by_what_landed_not_by_what_was_raised() -> None:
    e = StaleWritesRefused()
    assert score(e, with_record(RunRecord(stale_writes=[late(True)]))).passed
    quiet = score(e, with_record(RunRecord(stale_writes=[late(False)])))
    assert quiet.passed  # nothing raised, and nothing reached the database either
    landed = score(e, with_record(RunRecord(stale_writes=[late(False, "run_events: 7, text")])))
    assert not landed.passed and "1 row(s) landed (nothing raised)" in landed.detail
    raised = score(e, with_record(RunRecord(stale_writes=[late(True), late(True, "runs: r1")])))
    assert not raised.passed and "1 of 2 late worker(s)" in raised.detail
    assert "(raised)" in raised.detail
    none = score(e, with_record(RunRecord()))
    assert not none.passed and "no worker came back" in none.detail


def test_a_granted_approval_reaches_the_fence_seam_whether_or_not_a_worker_came_back() -> None:
    seam = SPECS[StaleWritesRefused].seam
    assert seam is not None
    granted = RunEvent(turn_index=1, seq=3, type="approval.granted", participant="operator")
    unreturned = with_record(RunRecord(events=[granted]))
    assert seam(StaleWritesRefused(), unreturned)
    verdict = score(StaleWritesRefused(), unreturned)
    assert not verdict.passed and "the fence was never tested" in verdict.detail
    assert not seam(StaleWritesRefused(), with_record(RunRecord()))
    assert seam(StaleWritesRefused(), with_record(RunRecord(stale_writes=[late(True)])))


def test_host_restarts_counts_the_restarts_the_host_recorded() -> None:
    e = HostRestarts(count=1)
    assert score(e, with_record(RunRecord(turns=[turn(1, "succeeded")], restarts=1))).passed
    none = score(e, with_record(RunRecord(turns=[turn(1, "succeeded")])))
    assert not none.passed and "restarted 0 time(s)" in none.detail
    assert not score(e, Evidence(tier="l3")).passed


def test_the_witness_check_names_a_refusal_that_landed() -> None:
    [line] = run_events.refused_but_landed(
        with_record(RunRecord(stale_writes=[late(True, "runs: r1")]))
    )
    assert "refused the late worker of Turn 1" in line and "1 row(s) of its Run landed" in line
    for quiet in (late(True), late(False), late(False, "runs: r1")):  # the kind's, not the check's
        assert not list(run_events.refused_but_landed(with_record(RunRecord(stale_writes=[quiet]))))
    assert not list(run_events.refused_but_landed(Evidence(tier="l3")))


def test_the_witness_check_names_a_receipt_naming_a_model_other_than_the_bindings() -> None:
    def answered(*receipts: Any) -> list[str]:
        messages = [PersistedMessage(turn_index=1, role="user", metadata={"receipt": "x"})]
        messages += [
            PersistedMessage(turn_index=i, role="assistant", metadata={"receipt": r})
            for i, r in enumerate(receipts, start=1)
        ]
        ev = with_record(RunRecord(messages=messages), model_answered_as="scripted")
        return list(run_events.receipt_names_another_model(ev))

    assert answered({"modelId": "scripted"}, {"modelId": "scripted"}) == []
    assert answered({"modelCallCount": 1}, None, "opaque") == []  # no modelId recorded: not asked
    [wrong] = answered({"modelId": "scripted"}, {"modelId": "unknown"})
    assert wrong == (
        'the receipt on the Turn 2 assistant Message names the model "unknown", but the binding '
        'answered as "scripted"'
    )
    [typed] = answered({"modelId": True})
    assert "names the model true" in typed
    record = RunRecord(messages=[PersistedMessage(1, "assistant", metadata={"receipt": {}})])
    assert not list(run_events.receipt_names_another_model(with_record(record)))  # not observed


def test_status_kinds_are_seam_independent() -> None:
    for struct in (RunStatus, TurnStatus, StateStatus, RunEventEmitted, RunEventNotEmitted,
                   RunEventTextOmits, PersistedMessageMetadataEquals):  # fmt: skip
        assert SPECS[struct].seam_independent
        assert SPECS[struct].tiers == frozenset({"l3"})


def replay(**overrides: Any) -> Evidence:
    fields: dict[str, Any] = {
        "crashed": True, "batch": ["c1", "c2"], "dispatched": ["c1", "c1", "c2"],
        "effects": {"c1": 1, "c2": 1}, "model_calls": 2, "turn_model_calls": 2,
    }  # fmt: skip
    fields.update(overrides)
    evidence = Evidence(tier="l2")
    evidence.put(ReplayRecord(**fields))
    return evidence


@pytest.mark.parametrize(
    ("overrides", "ok", "says"),
    [
        ({}, True, "replayed"),
        ({"crashed": False}, False, "never fired"),
        ({"dispatched": ["c1", "c2"]}, False, "expected the batch replayed"),
        ({"effects": {"c1": 2, "c2": 1}}, False, "each effect must run once"),
        ({"effects": {"c1": 1}}, False, "never ran ['c2']"),
        ({"model_calls": 3}, False, "called the model again"),
        ({"batch": ["c1"], "dispatched": ["c1", "c1"]}, False, "at least 2"),
    ],
)
def test_tool_batch_replayed(overrides: dict[str, Any], ok: bool, says: str) -> None:
    verdict = score(ToolBatchReplayed(), replay(**overrides))
    assert verdict.passed is ok and says in verdict.detail


# -- totality ---------------------------------------------------------------------------------

texts = st.text(max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=10,
)
statuses = st.sampled_from(["succeeded", "failed", "waiting", "running"]) | st.none()
records = st.builds(
    RunRecord,
    turns=st.lists(
        st.builds(TurnRecord, turn_index=st.integers(0, 4), run_id=texts, run_status=statuses,
                  state_status=statuses, turn_status=statuses, reason=st.none() | texts),
        max_size=4,
    ),
    events=st.lists(
        st.builds(RunEvent, turn_index=st.integers(0, 4), seq=st.integers(),
                  type=st.sampled_from(["text.delta", "approval.granted", "x"]),
                  participant=st.sampled_from(["participant", "operator"]), payload=json_values),
        max_size=6,
    ),
    messages=st.lists(
        st.builds(PersistedMessage, turn_index=st.integers(0, 4),
                  role=st.sampled_from(["user", "assistant"]), content=json_values,
                  metadata=json_values),
        max_size=4,
    ),
    commits=st.lists(st.builds(SoulCommit, turn_index=st.integers(0, 4), sha=texts,
                               paths=st.lists(texts, max_size=2),
                               subject=st.none() | texts), max_size=3),
    publications=st.lists(st.builds(ActivePublication, turn_index=st.integers(0, 4), commit=texts,
                                    artifacts=st.lists(texts, max_size=3)), max_size=3),
    stale_writes=st.lists(st.builds(StaleWrite, turn_index=st.integers(0, 4), raised=st.booleans(),
                                    landed=st.lists(texts, max_size=2), detail=texts), max_size=2),
)  # fmt: skip
replays = st.builds(
    ReplayRecord, crashed=st.booleans(), batch=st.lists(texts, max_size=3),
    dispatched=st.lists(texts, max_size=5),
    effects=st.dictionaries(texts, st.integers(), max_size=3),
    model_calls=st.integers(0, 4), turn_model_calls=st.integers(0, 4),
)  # fmt: skip
results = st.builds(
    ToolResult, call_id=texts, name=st.sampled_from(["soul_write", "x"]), arguments=json_values,
    status=st.sampled_from(["succeeded", "failed"]), output=json_values,
    reason=st.none() | texts, turn_index=st.integers(0, 3),
)  # fmt: skip


@st.composite
def evidence(draw: st.DrawFn) -> Evidence:
    calls = st.builds(ToolCall, call_id=texts, name=texts, arguments=json_values)
    denials = st.builds(
        Denial, call_id=texts, name=texts, arguments=json_values, reason=texts, source=texts
    )
    ev = Evidence(
        tier="l3",
        tool_results=draw(st.none() | st.lists(results, max_size=3)),
        tool_calls=draw(st.none() | st.lists(calls, max_size=2)),
        denials=draw(st.none() | st.lists(denials, max_size=2)),
    )
    record = draw(st.none() | records | json_values)
    if record is not None:
        ev.put(record)
    replay_record = draw(st.none() | replays)
    if replay_record is not None:
        ev.put(replay_record)
    return ev


FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "status": st.sampled_from(["succeeded", "failed", ""]),
    "turn_index": st.none() | st.integers(-1, 4),
    "event_type": st.sampled_from(["text.delta", "approval.granted", ""]),
    "count": st.none() | st.integers(-1, 3),
    "audience": st.sampled_from([None, "participant", "operator"]),
    "text": texts,
    "ungrounded": st.none() | texts,
    "path": st.sampled_from(["$", "a", "a.b", "", "a..b"]) | texts,
    "value": json_values,
    "name": st.sampled_from(["soul_write", "x", ""]),
    "argument_path": st.sampled_from(["$", "slug", ""]),
    "argument_value": json_values,
    "output_path": st.sampled_from(["$", "path", "a.0", ""]),
    "artifact": st.sampled_from(["Skill:a", "Agent:x", "bad", "Skill:"]) | texts,
    "subject": st.none() | st.sampled_from(["soul: update Skill a", ""]) | texts,
}


expectations = st.one_of(
    [st.builds(s, **{f: FIELDS[f] for f in s.__struct_fields__}) for s in SPECS]
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(expectations, evidence())
def test_every_scorer_is_total(e: Expectation, observed: Evidence) -> None:
    verdict = score(e, observed)
    assert isinstance(verdict, Verdict) and verdict.detail.strip()


@settings(max_examples=200)
@given(expectations)
def test_nothing_observed_never_passes(e: Expectation) -> None:
    verdict = score(e, Evidence(tier="l3"))
    assert not verdict.passed and verdict.detail.strip()


@settings(max_examples=200)
@given(expectations)
def test_every_check_is_total(e: Expectation) -> None:
    Scoring(SPECS).check_total(e)
