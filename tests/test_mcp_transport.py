"""The MCP transport is real: killing the provider mid-Turn ends the Trial with a recorded Tool
failure within a bounded time, never a hang, and the provider's count is "not observed" (never
zero); the next Trial gets a new provider and passes again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from eval_core._case.case import CaseBase
from eval_core._loading.corpus import Corpus
from eval_core._plugins.fixtures import SweepResources
from eval_core._plugins.host import Host, ModelCallRequest, ModelReply
from eval_core._plugins.plugins import PluginSet
from eval_core._running.scripted import ScriptedBinding, ScriptedSession
from eval_core._running.trial import TrialResult, run_trial

CASE = "l3-mcp-consented-shared-account-can-call"
BOUND = 30.0


def provider_pids() -> list[int]:
    """This process's children that are the fixture MCP provider."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"eval_expectations_mcp.provider" in cmdline and ppid == os.getpid():
            found.append(int(entry.name))
    return found


class KillingSession(ScriptedSession):
    """The scripted session, except that it kills the provider as the model answers with the
    MCP call: the provider dies mid-Turn, between the model and the dispatch."""

    killed = False

    def complete(self, request: ModelCallRequest) -> ModelReply:
        reply = super().complete(request)
        if reply.tool_calls and not KillingSession.killed:
            for pid in provider_pids():
                os.kill(pid, signal.SIGKILL)
            KillingSession.killed = True
        return reply


class KillingBinding(ScriptedBinding):
    def session(self, case: CaseBase) -> ScriptedSession:
        return KillingSession(case)


def test_killing_the_provider_mid_turn_records_a_tool_failure_without_hanging(
    corpus: Corpus, real_host: Host, plugins: PluginSet
) -> None:
    case = corpus.case(CASE)
    shared = SweepResources()
    out: dict[str, TrialResult] = {}
    binding = KillingBinding()

    def trial(name: str, with_binding: Any) -> None:
        out[name] = run_trial(
            case, 1, real_host, with_binding, plugins.kinds, plugins.fixtures, shared
        )

    try:
        started = time.monotonic()
        worker = threading.Thread(target=trial, args=("killed", binding), daemon=True)
        worker.start()
        worker.join(BOUND)
        assert not worker.is_alive(), f"the Trial hung for more than {BOUND}s"
        assert KillingSession.killed and time.monotonic() - started < BOUND
        killed = out["killed"]
        assert killed.outcome == "failed", killed
        details = {r.kind: r.detail for r in killed.expectations if not r.passed}
        assert "was not observed" in details["mcp_provider_call_count"]
        assert "ended failed" in details["tool_result_field_equals"]
        trial("again", ScriptedBinding())  # the next Trial starts a new provider
        assert out["again"].outcome == "passed", out["again"]
    finally:
        shared.close()


def exited(pid: int) -> bool:
    """Gone, or a zombie waiting for init to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state == "Z"


def test_the_provider_dies_with_a_sweep_that_was_killed(tmp_path: Path) -> None:
    """A SIGKILLed Sweep runs no clean-up: the provider must notice on its own, at once."""
    script = tmp_path / "sweep.py"
    script.write_text(
        "import time\n"
        "from eval_expectations_mcp.setup import Provider\n"
        "p = Provider()\n"
        "p.ensure()\n"
        "print(p.process.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    sweep = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert sweep.stdout is not None
    provider = int(sweep.stdout.readline())
    sweep.kill()
    sweep.wait()
    deadline = time.monotonic() + 5
    while not exited(provider) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not exited(provider):
        os.kill(provider, signal.SIGKILL)
        raise AssertionError("the provider outlived the Sweep that started it by 5 s")
