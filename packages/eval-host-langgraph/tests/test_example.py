"""The example project sweeps green on the scripted binding, its red-by-design Case fails
naming why, and it runs once against an OpenAI-wire vendor on loopback."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.model_source import Ceilings
from eval_core._plugins.plugin_set import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from eval_core._sweeping.render import render_text
from eval_host_langgraph.host import LangGraphHost

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "langgraph-triage"
CORPUS = EXAMPLE / "corpus"
RED = "red-a-ticket-the-desk-lacks-is-routed-anyway"


def test_the_example_corpus_sweeps_green_on_the_scripted_binding(
    corpus: Corpus, host: LangGraphHost, plugins: PluginSet
) -> None:
    card = run_sweep(corpus, host, ScriptedBinding(), plugins)
    failing = [(t.case_id, t.error, t.contradictions) for t in card.trials if t.outcome != "passed"]
    assert failing == []
    assert card.passed == len(corpus.cases) >= 15
    assert {c.field("mcp") is not None for c in corpus.cases} == {True, False}


def test_the_red_by_design_case_fails_and_its_scorecard_names_why(
    plugins: PluginSet, host: LangGraphHost
) -> None:
    red = Loader(plugins, host, judge="no-judge", needs_soul=False).load(CORPUS / "red-by-design")
    card = run_sweep(red, host, ScriptedBinding(), plugins)
    [trial] = card.trials
    assert trial.outcome == "failed"
    text = render_text(card)
    assert f"FAIL  {RED}#1" in text
    # the team's real route_ticket routed a ticket its desk does not have: the model was told
    # it was routed, never that there is no such ticket
    assert "does not contain \"no ticket 'T-999' on the desk\"" in text
    assert 'contains ""status": "routed""' in text


class _Vendor:
    """A Chat Completions vendor on 127.0.0.1 that triages as a model would, reading each
    request as sent: it looks the ticket up, routes it by the subject the real Tool returned,
    then answers. It keeps every request body it received (its own log)."""

    QUEUES = (("invoice", "billing", "normal"), ("502", "technical", "urgent"),
              ("owner", "account", "normal"))  # fmt: skip

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        vendor = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                vendor.bodies.append(body)
                raw = json.dumps(vendor.answer(body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        asked = next(m["content"] for m in messages if m["role"] == "user")
        ticket = re.search(r"T-\d+", str(asked))
        tools = [m for m in messages if m["role"] == "tool"]
        message: dict[str, Any]
        if not tools and ticket is not None:
            message = self._call("lookup_ticket", {"ticket_id": ticket.group()})
        elif len(tools) == 1 and ticket is not None:
            subject = str(tools[0]["content"])
            queue, priority = next(
                ((q, p) for word, q, p in self.QUEUES if word in subject), ("technical", "normal")
            )
            args = {"ticket_id": ticket.group(), "queue": queue, "priority": priority}
            message = self._call("route_ticket", args)
        else:
            message = {"role": "assistant", "content": "The ticket is routed."}
        return {
            "id": "loopback",
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 12},
        }

    def _call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        call_id = f"call_{len(self.bodies)}"
        function = {"name": name, "arguments": json.dumps(arguments)}
        calls = [{"id": call_id, "type": "function", "function": function}]
        return {"role": "assistant", "content": None, "tool_calls": calls}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_example_runs_against_an_openai_wire_vendor_on_loopback(
    tmp_path: Path,
    corpus: Corpus,
    host: LangGraphHost,
    plugins: PluginSet,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The installed model source's real OpenAI wire (pin, preflight, transport, spend), the
    same path as ``eval sweep --model``, against a vendor on 127.0.0.1."""
    vendor = _Vendor()
    models = tmp_path / "models.toml"
    models.write_text(
        f'[models.loop]\nwire = "openai"\nmodel = "loop-2026-01-01"\nbase_url = "{vendor.url}"\n'
        'credential = "env://EVAL_LOOP_KEY"\ndated = true\ntimeout_s = 20\n'
        "price_input_per_mtok = 1.0\nprice_output_per_mtok = 2.0\n"
    )
    monkeypatch.setenv("EVAL_LOOP_KEY", "sk-loop-test-0123456789abcdef")
    cases = [
        "tool-choice-billing-ticket-goes-to-billing",
        "tool-choice-outage-is-urgent-for-technical",
        "tool-choice-owner-change-goes-to-account",
    ]
    source = plugins.model_source
    assert source is not None
    leg = source.open_leg(models, "loop")
    try:
        binding = leg.start(Ceilings(max_tokens=100_000), planned=len(cases))
        card = run_sweep(corpus, host, binding, plugins, select=cases)
    finally:
        leg.close()
        vendor.close()
    assert [(t.outcome, t.model_calls) for t in card.trials] == [("passed", 3)] * 3
    assert card.trials[0].usage.input_tokens == 3 * 120
    # the vendor's own log: the team's prompt and Tools went over the wire, and the real
    # lookup_ticket's answer came back to it as a tool message
    assert len(vendor.bodies) == 9
    first = vendor.bodies[0]
    assert first["messages"][0]["role"] == "system"
    assert "Acme help desk" in first["messages"][0]["content"]
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert set(offered) == {"lookup_ticket", "route_ticket", "schedule_callback", "escalate_ticket"}
    # the graph's state is injected by LangGraph, never asked of the model
    assert "state" not in offered["escalate_ticket"]["parameters"]["properties"]
    assert "Charged twice for the March invoice" in vendor.bodies[1]["messages"][-1]["content"]
