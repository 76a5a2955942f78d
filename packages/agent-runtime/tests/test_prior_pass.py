"""The Host's seam for an earlier pass of a Turn's attempt (``attemptHistory``): it is written
in the runtime's own events, as a worker that then went away would have left them."""

from __future__ import annotations

from agent_runtime.durable.executor import start_turn
from agent_runtime.durable.runs import RunStore
from agent_runtime.durable.scenario import seed_prior_pass
from agent_runtime.store.storage import StoreTemplate


def test_an_earlier_pass_is_its_calls_their_results_and_its_text_then_a_lost_worker(
    template: StoreTemplate,
) -> None:
    """Each Tool call it finished is a ``tool.call`` and its ``tool.result``: ``ok``, or an
    ``error`` that says the call failed and why; then the text it released. Its worker is
    gone: the Run keeps ``worker_lost`` as its reason and is queued again for the next one."""
    store = RunStore(template.fresh())
    conversation = store.start_conversation("support")
    run = start_turn(store, conversation, 1, [{"role": "user", "content": "Where is T-1042?"}])
    calls = [("c1", "lookup_ticket", "ok"), ("c2", "post_comment", "error")]
    seed_prior_pass(store, run, "T-1042 shipped.", calls)

    written = [(kind, payload) for _seq, kind, _who, payload in store.events(run.run_id)]
    results = [payload for kind, payload in written if kind == "tool.result"]
    assert [p["callId"] for kind, p in written if kind == "tool.call"] == ["c1", "c2"]
    assert results == [
        {"callId": "c1", "status": "ok", "resultPreview": {"json": "{}", "bytes": 2}},
        {
            "callId": "c2",
            "status": "error",
            "errorCode": "failed",
            "summary": "failed in an earlier pass",
        },
    ]
    assert [p["text"] for kind, p in written if kind == "text.delta"] == ["T-1042 shipped."]
    run_status, state_status, _turn, reason = store.statuses(run)
    assert (run_status, state_status, reason) == ("queued", "queued", "worker_lost")
