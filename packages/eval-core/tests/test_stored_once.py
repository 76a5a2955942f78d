"""What a transcript stores once: each repeat of the Trial's prompt and Tools offered emptied
and named, the Trial's own Evidence unchanged. That it comes back whole is the reader's test
(eval-report's test_stored_once.py)."""

from __future__ import annotations

import msgspec

from eval_core._case.evidence import Evidence, ModelRequest, OfferedTool, Testimony
from eval_core._recording.stored_once import strip


def test_each_repeat_is_stored_once() -> None:
    offered = [OfferedTool(name="lookup_ticket", input_schema={"type": "object"})]
    request = ModelRequest(system="You are Support.", messages=[], tools=[], offered=offered)
    observed = Evidence(
        tier="l2",
        system_prompt="You are Support.",
        model_requests=[request, request, request],
        testimony=Testimony(system_prompt="You are Support."),
    )
    before = msgspec.json.encode(observed)
    stored, shared = strip(observed)
    assert msgspec.json.encode(observed) == before  # the Trial's own Evidence is not changed
    encoded = msgspec.json.encode(stored)
    assert encoded.count(b"You are Support.") == 1 and encoded.count(b"lookup_ticket") == 1
    assert shared.system == [0, 1, 2] and shared.offered == [1, 2] and shared.testimony
