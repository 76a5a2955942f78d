"""What a transcript stores once comes back whole: strip then restore is the Evidence observed,
whatever repeats (or does not) across its requests and the runtime's testimony."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence, ModelRequest, OfferedTool, Testimony
from eval_core._recording.stored_once import restore, strip

PROMPTS = st.sampled_from(["You are Support.", "You are Billing.", ""])
OFFERED = st.one_of(
    st.none(),
    st.lists(
        st.builds(
            OfferedTool,
            name=st.sampled_from(["lookup_ticket", "get_current_time"]),
            description=st.sampled_from([None, "Looks up a ticket."]),
            input_schema=st.sampled_from([None, {"type": "object"}]),
        ),
        max_size=2,
    ),
)
REQUESTS = st.lists(
    st.builds(
        ModelRequest,
        system=PROMPTS,
        messages=st.just([{"role": "user", "content": "Where is my order?"}]),
        tools=st.just(["lookup_ticket"]),
        offered=OFFERED,
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(
    prompt=st.one_of(st.none(), PROMPTS),
    requests=st.one_of(st.none(), REQUESTS),
    said=st.one_of(st.none(), st.builds(Testimony, system_prompt=st.one_of(st.none(), PROMPTS))),
)
def test_strip_then_restore_is_the_evidence_observed(
    prompt: str | None, requests: list[ModelRequest] | None, said: Testimony | None
) -> None:
    observed = Evidence(tier="l2", system_prompt=prompt, model_requests=requests, testimony=said)
    before = msgspec.json.encode(observed)
    stored, shared = strip(observed)
    assert msgspec.json.encode(observed) == before  # the Trial's own Evidence is not changed
    again = msgspec.json.decode(msgspec.json.encode(stored), type=Evidence)
    restore(again, shared)
    assert msgspec.json.encode(again) == before


def test_each_repeat_is_stored_once() -> None:
    offered = [OfferedTool(name="lookup_ticket", input_schema={"type": "object"})]
    request = ModelRequest(system="You are Support.", messages=[], tools=[], offered=offered)
    observed = Evidence(
        tier="l2",
        system_prompt="You are Support.",
        model_requests=[request, request, request],
        testimony=Testimony(system_prompt="You are Support."),
    )
    stored, shared = strip(observed)
    encoded = msgspec.json.encode(stored)
    assert encoded.count(b"You are Support.") == 1 and encoded.count(b"lookup_ticket") == 1
    assert shared.system == [0, 1, 2] and shared.offered == [1, 2] and shared.testimony
