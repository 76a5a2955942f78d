"""Drift: a replay compared with what its recorded script was shown, each difference a NOTE
naming it (a Tool offered or gone, a Tool's schema, the message count, the system prompt's
lines, the number of requests), the verdict unchanged; what a session shows is kept whatever
the binding, and a session's ``begin_turn`` survives the keeping."""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from card_fixtures import tallied
from eval_core._case.case import ToolDecl
from eval_core._case.evidence import Evidence, ModelRequest
from eval_core._case.recorded import Recorded, recorded_from
from eval_core._plugins.host import ModelCallRequest, ModelReply, ModelToolCall, TurnScripted
from eval_core._running.drift import drift, shown_of, watched
from eval_core._running.trial import TrialResult
from eval_kit import Kit

SYSTEM = "You are the clerk.\nBe polite.\nUse lookup_order first."
TOOL = ToolDecl(name="lookup_order", input_schema={"type": "object"}, description="Looks up.")


def request(system: str = SYSTEM, messages: int = 1, tools: tuple[ToolDecl, ...] = (TOOL,)) -> Any:
    return ModelCallRequest(
        system=system,
        messages=[{"role": "user", "content": "hi"}] * messages,
        tools=list(tools),
    )


def replayed(*requests: ModelCallRequest) -> Evidence:
    """The Evidence of a replay that made these requests (as the binding's witness keeps it)."""
    return Evidence(
        tier="l2",
        shown=[shown_of(r) for r in requests],
        model_requests=[
            ModelRequest(system=r.system, messages=r.messages, tools=[]) for r in requests
        ],
    )


def recording(*requests: ModelCallRequest) -> Recorded:
    recorded = recorded_from([shown_of(r) for r in requests], model="m", date="2026-12-06")
    # as the Case file keeps it, and as the loader reads it back
    return msgspec.json.decode(msgspec.json.encode(recorded), type=Recorded)


def test_a_replay_showing_what_was_recorded_has_no_drift() -> None:
    first, second = request(), request(messages=3)
    assert drift(recording(first, second), replayed(first, second)) == []


def test_each_change_is_one_note_naming_it() -> None:
    then = recording(request(), request(messages=3))
    wider = ToolDecl(name="lookup_order", input_schema={"type": "object", "required": ["id"]})
    refund = ToolDecl(name="refund", input_schema={"type": "object"})
    now = replayed(
        request(
            system=SYSTEM.replace("Be polite.", "Be brief.\nAnswer in French."),
            tools=(wider, refund),
        ),
        request(messages=4),
        request(messages=6),
    )
    assert drift(then, now) == [
        "drift: request 1: the system prompt changed: 2 line(s) added ('Be brief.'; "
        "'Answer in French.'), 1 removed",
        "drift: request 1: Tool 'refund' is offered now, not when recorded",
        "drift: request 1: Tool 'lookup_order': its description or input schema changed",
        "drift: request 2: 4 message(s) now, 3 when recorded",
        "drift: the model was called 3 time(s); the script was recorded from 2 request(s)",
    ]


def test_the_same_change_in_several_requests_is_one_note_naming_them() -> None:
    then = recording(request(), request(messages=3))
    now = replayed(request(tools=()), request(messages=3, tools=()))
    assert drift(then, now) == [
        "drift: requests 1, 2: Tool 'lookup_order' was offered when recorded, not now"
    ]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.text(max_size=30), min_size=1, max_size=6),
    st.lists(st.text(max_size=30), min_size=1, max_size=6),
)
def test_a_system_prompt_drifts_exactly_when_it_changed(
    before: list[str], after: list[str]
) -> None:
    old, new = "\n".join(before), "\n".join(after)
    notes = drift(recording(request(system=old)), replayed(request(system=new)))
    assert bool(notes) == (old != new)
    assert all(note.startswith("drift: request 1: the system prompt changed") for note in notes)
    assert all("\n" not in note for note in notes)


class _Session:
    usage: Any = None
    calls = 0
    retries = 0
    model_version = None
    sent: ClassVar[list[ModelRequest]] = []

    def complete(self, request: ModelCallRequest) -> ModelReply:
        return ModelReply(
            tool_calls=[ModelToolCall(call_id="c1", name="lookup_order", arguments={"id": 1})]
        )


class _TurnSession(_Session):
    def __init__(self) -> None:
        self.turns: list[Any] = []

    def begin_turn(self, steps: Any) -> None:
        self.turns.append(steps)


def test_a_watched_session_keeps_what_it_showed_and_what_the_model_answered() -> None:
    plain = watched(_Session())
    assert not isinstance(plain, TurnScripted)  # a real model's session answers each Turn alone
    plain.complete(request())
    assert plain.shown == [shown_of(request())]
    [answer] = plain.answers
    assert [(c.call_id, c.name, c.arguments) for c in answer.calls] == [
        ("c1", "lookup_order", {"id": 1})
    ]
    inner = _TurnSession()
    turned = watched(inner)
    assert isinstance(turned, TurnScripted)
    turned.begin_turn(["step"])
    assert inner.turns == [["step"]] and turned.retries == 0  # the rest read through


def test_a_drifted_replay_keeps_its_verdict_and_says_so(eval_kit: Kit) -> None:
    stale = {
        "model": "m",
        "date": "2026-12-06",
        "tools": {},
        "systems": {"0000": ""},
        "requests": [{"system": "0000", "messages": 1}],
    }
    fresh = eval_kit.run(eval_kit.case({"kind": "loop_status", "status": "completed"}))
    noted = eval_kit.run(
        eval_kit.case({"kind": "loop_status", "status": "completed"}, recorded=stale)
    )
    assert fresh.outcome == noted.outcome == "passed"
    assert fresh.notes == ()
    assert len(noted.notes) == 1 and noted.notes[0].startswith(
        "drift: request 1: the system prompt changed"
    )


def test_the_text_scorecard_shows_a_noted_trial_and_counts_it() -> None:
    from eval_core._sweeping.render import render_text

    note = "drift: request 1: 2 message(s) now, 1 when recorded"
    card = tallied(
        [
            TrialResult(case_id="old", trial=1, outcome="passed", notes=[note]),
            TrialResult(case_id="new", trial=1, outcome="passed"),
        ],
        corpus_commit="unknown",
    )
    text = render_text(card)
    assert f"PASS  old#1\n     NOTE {note}\n" in text
    assert "new#1" not in text  # a passed Trial with nothing to say stays quiet
    assert "2 passed, 0 failed, 0 errored, 1 noted" in text
