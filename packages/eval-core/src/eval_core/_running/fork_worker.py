"""A forked worker: the child's loop over the Trials its parent sends, the pipe between them
(length-prefixed pickles), and how the parent ends a child (:mod:`eval_core._running.forked`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import time
from typing import TYPE_CHECKING, Any

from eval_core._running.trial import TrialResult

if TYPE_CHECKING:
    from eval_core._plugins.executor import Work
    from eval_core._plugins.host import Host

_SIZE = struct.Struct("!Q")


class Worker:
    """The parent's record of one child: its pipes, its scratch directory, its Trial."""

    __slots__ = ("busy", "pid", "replies", "requests", "scratch", "since", "trial")

    def __init__(self, pid: int, requests: int, replies: int, scratch: str) -> None:
        self.pid, self.requests, self.replies = pid, requests, replies
        self.scratch = scratch  # the child's TMPDIR, removed by the parent once it is gone
        self.busy: int | None = None
        self.trial: tuple[str, int] = ("", 0)
        self.since = 0.0


def serve(requests: int, replies: int, host: Host, work: Work, run: tuple[Any, Any, Any]) -> None:
    """Run each Trial the parent sends down ``requests`` and send its result up ``replies``,
    until the parent closes its end; retire after an errored Trial. ``run``: the kinds,
    fixtures and witness checks the parent imported before it forked."""
    from eval_core._plugins.fixtures import SweepResources
    from eval_core._running.errored import ended_harness
    from eval_core._running.trial import run_trial

    kinds, fixtures, checks = run
    cases = {case.id: case for case in work.corpus.cases}
    shared = SweepResources()
    try:
        while True:
            message = receive(requests)
            if message is None:
                return
            key, case_id, number = message
            seen: list[Any] = []
            observe = seen.append if work.evidence else None
            try:
                result = run_trial(
                    cases[case_id],
                    number,
                    host,
                    work.binding,
                    kinds,
                    fixtures,
                    shared,
                    observe,
                    checks,
                )
            except KeyboardInterrupt as exc:  # SIGINT is ignored here: the team's own
                error = ended_harness(exc)
                result = TrialResult(case_id=case_id, trial=number, outcome="errored", error=error)
            send(replies, (key, result, seen[-1] if seen else None))
            if result.outcome == "errored":
                return  # retire: the parent forks a fresh child in its place
    finally:
        shared.close()  # the Host is the parent's: it closes it once, after every child


def end(pid: int, *, kill: bool) -> str:
    """End a child (given a moment to end itself unless ``kill``) and reap it; how it ended,
    as words."""
    status = 0
    reaped = 0
    if not kill:
        for _ in range(100):
            with contextlib.suppress(ChildProcessError):
                reaped, status = os.waitpid(pid, os.WNOHANG)
            if reaped:
                break
            time.sleep(0.01)
    if not reaped:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}"


def send(fd: int, value: object) -> None:
    """One message: its length, then the pickle."""
    import pickle

    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_SIZE.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def receive(fd: int) -> Any:
    """One message, or ``None`` at the end of the pipe."""
    head = _read(fd, _SIZE.size)
    if head is None:
        return None
    (size,) = _SIZE.unpack(head)
    body = _read(fd, size)
    if body is None:
        raise EOFError("a message was cut short")
    import pickle

    return pickle.loads(body)


def _read(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
