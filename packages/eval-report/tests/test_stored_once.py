"""What a transcript stores once comes back whole: written by the core (which strips each
repeat of the prompt and the Tools offered) and read here, it is the Evidence observed, whatever
repeats (or does not) across its requests and the runtime's testimony."""

from __future__ import annotations

import tempfile
from pathlib import Path

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._case.evidence import Evidence, ModelRequest, OfferedTool, Testimony
from eval_core._recording.transcript import Pack, encode
from eval_report.transcripts import Reader, decode

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
def test_what_is_stored_once_reads_back_as_the_evidence_observed(
    prompt: str | None, requests: list[ModelRequest] | None, said: Testimony | None
) -> None:
    observed = Evidence(tier="l2", system_prompt=prompt, model_requests=requests, testimony=said)
    before = msgspec.json.encode(observed)
    again = decode(encode([], observed, lambda data: data), "test").evidence
    assert msgspec.json.encode(observed) == before  # the Trial's own Evidence is not changed
    assert msgspec.json.encode(again) == before
    with tempfile.TemporaryDirectory() as where:  # the prompt stored apart, in a side file
        side = Path(where) / "log.jsonl.transcripts"
        pack = Pack.create(side)
        pointer = pack.put(encode([], observed, lambda data: data, pack))
        pack.close()
        apart = Reader(side).get(pointer).evidence
    assert msgspec.json.encode(observed) == before
    assert msgspec.json.encode(apart) == before
