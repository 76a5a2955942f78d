"""The Host's ``noise()``: what the MCP SDK's, httpx's and anyio's loggers had kept off stderr
in this process reaches the Sweep's report (nothing before an MCP session imports the counter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EVAL_SOUL = Path(__file__).resolve().parents[3] / "corpus" / "soul"

# In a child process: the counter installs handlers on third-party loggers for the process.
PROGRAM = """
import json, logging, sys
from pathlib import Path
from eval_host_agent_runtime.host import AgentRuntimeHost

host = AgentRuntimeHost(Path(sys.argv[1]))
before = host.noise()
from agent_runtime.mcp import sdk_noise
sdk_noise.quiet()
logging.getLogger("httpx").warning("a server that misbehaves")
logging.getLogger("httpx").warning("and again")
logging.getLogger("anyio").error("a stream closed early")
print(json.dumps([before, host.noise()]))
"""


def test_the_records_kept_off_stderr_are_the_hosts_noise() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(EVAL_SOUL)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    before, after = json.loads(out.stdout)
    assert before == {}
    assert after == {"httpx": 2, "anyio": 1}
    assert out.stderr == ""
