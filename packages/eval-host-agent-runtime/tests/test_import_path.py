"""What a scripted L2 Trial imports: start-up is most of a small Sweep, so the tiers and Tools
an L2 Trial does not use load with the first Trial that does (issue 32)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EVAL_SOUL = Path(__file__).resolve().parents[3] / "corpus" / "soul"

DEFERRED = {
    "agent_runtime.files.attachments",  # the attachment gate: a Trial that has Files
    "agent_runtime.files.documents",
    "agent_runtime.durable.executor",  # the durable tier: the first L3 Trial
    "agent_runtime.files.store",
    "agent_runtime.files.tools",
    "agent_runtime.mcp.accounts",
    "agent_runtime.routines.definitions",  # a Soul with a routines/ folder
    "agent_runtime.durable.runs",
    "agent_runtime.store.storage",
    "agent_runtime.durable.scenario",
    "eval_host_agent_runtime.l3",
    "eval_host_agent_runtime.l3_services",
    "eval_host_agent_runtime.tier",
    "sqlite3",
}

# One Turn through the Host's Soul, its executor port and the runtime's recovering loop, with
# a model that calls the scripted lookup_ticket once and then answers.
PROGRAM = """
import json, sys
from pathlib import Path
from agent_runtime.hosting import INDEPENDENT
from agent_runtime.model import ModelResponse, ToolCallRequest
from agent_runtime.turn.recovery import MemoryCheckpoints, run_recovering
from agent_runtime.turn.settings import TurnSettings, TurnStart
from agent_runtime.tools import PLATFORM_TOOLS
from eval_core.hosts import ScriptedResult
from eval_host_agent_runtime.host import AgentRuntimeHost
from eval_host_agent_runtime.ports import ScriptedExecutor, ToolWitness

class Model:
    def __init__(self):
        self.replies = [
            ModelResponse(tool_calls=[ToolCallRequest("c1", "lookup_ticket", {"ticketId": "T-7"})]),
            ModelResponse(text="Order 7 is packed."),
        ]
    def complete(self, request):
        return self.replies.pop(0)

host = AgentRuntimeHost(Path(sys.argv[1]))
host.services("l2")
scripted = ScriptedResult(name="lookup_ticket", output={"status": "packed"})
witness = ToolWitness(ScriptedExecutor([scripted]))
settings = TurnSettings(
    soul=host.soul, agent_slug="support", context={}, tools=[PLATFORM_TOOLS["lookup_ticket"]],
    model=Model(), executor=witness, hosting=INDEPENDENT,
)
start = TurnStart(messages=[{"role": "user", "content": "When does order 7 ship? Ticket T-7."}])
result = run_recovering(settings, start, MemoryCheckpoints(None))
loaded = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
print(json.dumps([result.status, result.output_text, len(witness.received), loaded]))
"""


def test_an_l2_turn_loads_no_durable_tier_files_or_routines() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(EVAL_SOUL), json.dumps(sorted(DEFERRED))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    status, answer, received, loaded = json.loads(out.stdout)
    assert (status, answer, received) == ("completed", "Order 7 is packed.", 1)
    assert loaded == [], f"an L2 Turn imported {loaded}"
