"""An agent that breaks the protocol errors its Trial in one line, with nothing left running:
it hangs, crashes, prints garbage, floods stdout, leaves a child behind (in its process group,
a daemon that left it, or a forked copy of itself that left it and never exec'd), or its own
code raises; forked by the fork-server, and (the ways to outlive it) started per Trial. Real
subprocesses, a real loopback server."""

from __future__ import annotations

from pathlib import Path

import pytest

from process_project import RUN, Sweep, order_case

ERRORS = {
    "hang": "the agent did not answer within 2 s; its processes were ended",
    "crash": "the agent exited with status 3 (stderr: agent: the desk exploded)",
    "garbage": "the agent printed something that is not an answer: 'Thinking... here is my "
    "answer: 42'",
    "flood": "the agent printed more than 1048576 bytes on stdout; it was ended",
    "daemon": "the agent left 1 process(es) running after it exited (",
    "orphan": "the agent left 1 process(es) running after it exited (",
    "fork-daemon": "the agent left 1 process(es) running after it exited (",
    "raise-tool": "the agent exited with status 1 (stderr: RuntimeError: the agent's own code "
    "failed calling lookup_order)",
}


def _marked(run: str) -> list[int]:
    """Processes of this test run's agents (none may outlive its Trial); another run's agents
    on the same machine (their own value of RUN) are not looked at."""
    needle = f"{RUN}={run}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _described(pid: int) -> str:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_bytes().decode()
        command = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return "gone"
    return f"{stat[:120]} {command.decode()[:120]}"


SPAWNED = ("hang", "daemon", "orphan", "fork-daemon")
"""Also started per Trial (host option start=spawn), not only forked by the fork-server: the
ways an agent's processes can outlive it, found by either start."""


@pytest.mark.parametrize(
    ("misbehaviour", "start"),
    [(m, "fork-server") for m in sorted(ERRORS)] + [(m, "spawn") for m in SPAWNED],
)
def test_a_misbehaving_agent_errors_in_one_line_and_leaves_nothing(
    sweep: Sweep, misbehaviour: str, start: str, run_mark: str
) -> None:
    timeout = 2 if misbehaviour == "hang" else 30
    case = order_case(f"agent-{misbehaviour}", misbehaviour)
    card, _ = sweep([case], timeout=timeout, start=start)
    (trial,) = card.trials
    assert trial.outcome == "errored"
    error = trial.error or ""
    assert "\n" not in error and "Traceback" not in error
    assert error.startswith("AgentError: " + ERRORS[misbehaviour]), error
    left = {pid: _described(pid) for pid in _marked(run_mark)}
    assert left == {}, f"left running: {left}"
