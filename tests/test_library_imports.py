"""The libraries the runtime and the bindings use for MCP, HTTP, Office documents and git load
where they are used, never on a scripted Sweep's path: a one-Case Sweep with no MCP server,
no Office File and no real model imports none of them (read from ``-X importtime``, the
interpreter's own account of every module it loaded)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAZY = {
    "mcp",  # agent_runtime.mcp.session: the first MCP call
    "httpx",  # the MCP session, and eval_bindings.wire: the first real-model call
    "httpcore",
    "anyio",
    "defusedxml",  # agent_runtime.files.documents: the first Office File read
    "docx",  # agent_runtime.files.render: the first file_create of its format
    "openpyxl",
    "pptx",
    "fpdf",
    "pygit2",  # agent_runtime.soul.repo: the first L3 Trial that writes the Soul
}


def test_a_scripted_sweep_imports_none_of_the_lazy_libraries(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "eval_cli", "sweep", "-q",
         "--case", "finance-refund-is-blocklisted", "--log", str(tmp_path / "log.jsonl")],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    loaded = {
        line.rsplit("|", 1)[-1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "eval_core" in loaded  # the account is there to read
    assert sorted(LAZY & loaded) == []
