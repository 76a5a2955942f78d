"""MCP L3 Trials per second, including the provider round trip, on the scripted binding.

Prints figures; it is never a timed test. Usage::

    uv run python bench/mcp_sweep.py [N]

Each Trial runs real Runs on a fresh database copy, parks on the MCP approval, is approved as
host state, resumes, and calls the fixture MCP provider over streamable HTTP on loopback, with
fresh account credentials of its own; the provider's own count is read back. The provider
starts once per Sweep (reported with the Host load). Target: under 100 ms per Trial.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from l3_sweep import measure

CASES = {
    "one approved call": "l3-mcp-consented-shared-account-can-call",
    "two approved calls": "l3-mcp-every-approval-is-its-own-durable-event",
    "refused after approval": "l3-mcp-a-revoked-grant-blocks-an-approved-call",
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    measure(CASES, n, "L3 Host load + MCP provider start + first Trial")


if __name__ == "__main__":
    main()
