"""The L2 live event stream: a fixture that subscribes hears each event the loop emits, kind
and payload, as it is emitted, after the Recorder has kept it. No shipped Case subscribes at L2
(the files family's ``replaceAfterRead``, the one subscriber, is held to single-Turn L3 Cases),
so only this test sees what an L2 subscriber is handed."""

from __future__ import annotations

from typing import Any

from eval_host_agent_runtime.events import Recorder
from eval_host_agent_runtime.l2 import _Services
from eval_host_agent_runtime.ports import ScriptedExecutor


def test_an_l2_subscriber_hears_each_event_kind_and_payload_in_order() -> None:
    recorder = Recorder()
    services = _Services("support", ScriptedExecutor([]), recorder)
    heard: list[tuple[str, dict[str, Any]]] = []
    kept: list[int] = []

    def on_event(kind: str, payload: dict[str, Any]) -> None:
        heard.append((kind, payload))
        kept.append(len(recorder.events))

    services.events.subscribe(on_event)
    call = {"callId": "c1", "name": "file_read", "argsPreview": '{"fileId": "f1"}'}
    result = {"callId": "c1", "status": "ok"}
    recorder("tool.call", call)
    recorder("tool.result", result)
    assert heard == [("tool.call", call), ("tool.result", result)]
    assert kept == [1, 2]
    assert [(e.seq, e.type) for e in recorder.events] == [(1, "tool.call"), (2, "tool.result")]
