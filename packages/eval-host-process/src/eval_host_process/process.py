"""One run of the team's agent as a process: started in a session of its own, fed its stdin,
read back within bounds, and ended with everything it started.

The agent runs in a new session (so a new process group) with a per-Trial marker in its
environment (:data:`MARK`). At the end, whatever the reason (it exited, it overran the
deadline, it flooded stdout), every process still in its group or still carrying the marker
is ended: SIGTERM, a short grace, SIGKILL; then checked gone. A child that left the group
(``setsid``, a double fork) keeps the marker, so it is found too; one that both leaves the
session and wipes its environment is beyond what a process tree can see (a cgroup would be).

An agent forked by a fork-server (:mod:`.fork_server`) carries the marker only in what it
starts with ``exec``; its supervisor is its child subreaper instead, so whatever the agent left
behind is, or descends from, a child of the supervisor, and is found that way.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eval_host_process.fork_server import Forked, ForkServer

MARK = "EVAL_TRIAL_MARK"
STDOUT_LIMIT = 1 << 20  # 1 MiB: more is a flood, never an answer
STDERR_KEPT = 64 << 10  # the tail kept for an error line
GRACE_SECONDS = 0.5  # between SIGTERM and SIGKILL
SETTLE_SECONDS = 0.5  # after the agent exits, for its own children to end on their own
CHUNK = 65536


class AgentError(Exception):
    """The agent's process failed the protocol: the Trial errors with this one line."""


@dataclass(frozen=True, slots=True)
class Ended:
    """How one agent process ended, read back."""

    status: int | None  # the exit status (negative: the signal), None if it had to be killed
    stdout: bytes
    stderr: bytes  # the tail
    timed_out: bool
    flooded: bool
    outlived: tuple[str, ...]  # the processes it left running (killed): "pid command"
    seconds: float

    def stderr_line(self) -> str:
        """stderr's last line that says something (a traceback's frame of an exception group,
        ``+-----``, says nothing; its ``| Error: ...`` line does), cut: what an error names."""
        for line in reversed(self.stderr.decode("utf-8", "replace").splitlines()):
            text = " ".join(line.split()).lstrip("|+ ")
            if any(c.isalnum() for c in text):
                return text if len(text) <= 200 else text[:199] + "…"
        return ""


def run(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes,
    timeout: float,
    marker: str,
    server: ForkServer | None = None,
) -> Ended:
    """Run ``argv`` (forked by ``server``, else started) to its end or to the deadline; nothing
    it started outlives this call."""
    started = time.monotonic()
    child: subprocess.Popen[bytes] | Forked
    if server is not None:
        child = server.open(argv, cwd=cwd, env={**env, MARK: marker})
    else:
        try:
            child = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env={**env, MARK: marker},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            raise AgentError(
                f"could not start the agent {argv[0]!r}: {exc.strerror or exc}"
            ) from None
    born = _born(child.pid)
    reaper = getattr(child, "reaper", None)
    try:
        out, err, timed_out, flooded = _exchange(child, stdin, started + timeout)
    finally:
        try:
            outlived = _end_all(child, marker, born, reaper)
        finally:
            hang_up = getattr(child, "hang_up", None)
            if hang_up is not None:
                hang_up()
    lost = getattr(child, "lost", None)
    if lost:
        raise AgentError(lost)
    status = child.returncode if not (timed_out or flooded) else None
    return Ended(
        status=status,
        stdout=out,
        stderr=err,
        timed_out=timed_out,
        flooded=flooded,
        outlived=outlived,
        seconds=time.monotonic() - started,
    )


def _exchange(
    child: subprocess.Popen[bytes] | Forked, stdin: bytes, deadline: float
) -> tuple[bytes, bytes, bool, bool]:
    """Write stdin, read stdout (capped) and stderr (its tail) until both close and the agent
    exits, or the deadline, or a flood. A descendant holding the pipes open after the agent
    exited does not hold the Trial: the pipes are read for :data:`SETTLE_SECONDS` more."""
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    out, err = bytearray(), bytearray()
    pending = memoryview(stdin)
    with selectors.DefaultSelector() as selector:
        for pipe in (child.stdin, child.stdout, child.stderr):
            os.set_blocking(pipe.fileno(), False)
        if pending:
            selector.register(child.stdin, selectors.EVENT_WRITE)
        else:
            child.stdin.close()
        selector.register(child.stdout, selectors.EVENT_READ)
        selector.register(child.stderr, selectors.EVENT_READ)
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if now >= deadline:
                return bytes(out), bytes(err), True, False
            if exited_at is None and child.poll() is not None:
                exited_at = now
            readers = [k for k in selector.get_map().values() if k.fileobj is not child.stdin]
            if exited_at is not None and (not readers or now - exited_at > SETTLE_SECONDS):
                return bytes(out), bytes(err), False, False
            if exited_at is None and not selector.get_map():
                # both pipes closed and nothing left to write: wait for the exit itself, not a
                # 50 ms poll (which every Trial's agent would otherwise pay once)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=deadline - now)
                continue
            wait = min(deadline - now, 0.05 if exited_at is None else SETTLE_SECONDS)
            for key, _ in selector.select(wait):
                stream: Any = key.fileobj
                if stream is child.stdin:
                    try:
                        written = os.write(child.stdin.fileno(), pending[:CHUNK])
                    except (BrokenPipeError, BlockingIOError) as exc:
                        written = 0 if isinstance(exc, BlockingIOError) else len(pending)
                    pending = pending[written:]
                    if not pending:
                        selector.unregister(child.stdin)
                        child.stdin.close()
                    continue
                try:
                    data = os.read(stream.fileno(), CHUNK)
                except BlockingIOError:
                    continue
                if not data:
                    selector.unregister(stream)
                elif stream is child.stdout:
                    out += data
                    if len(out) > STDOUT_LIMIT:
                        return bytes(out[:STDOUT_LIMIT]), bytes(err), False, True
                else:
                    err += data
                    if len(err) > STDERR_KEPT:
                        del err[: len(err) - STDERR_KEPT]


def _end_all(
    child: subprocess.Popen[bytes] | Forked, marker: str, born: int, reaper: int | None
) -> tuple[str, ...]:
    """End the agent and everything of its group, carrying its marker or descending from its
    ``reaper``; what was still running after the agent itself had exited is returned (it
    outlived the agent)."""
    exited = child.poll() is not None
    left = _descendants(child.pid, marker, born, reaper)
    if exited:  # its children get a moment to end on their own
        settle = time.monotonic() + SETTLE_SECONDS
        while left and time.monotonic() < settle:
            time.sleep(0.02)
            left = _descendants(child.pid, marker, born, reaper)
    outlived = tuple(f"{pid} {_command(pid)}" for pid in left) if exited else ()
    if not exited or left:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            _signal_all(child, marker, born, reaper, sig)
            end = time.monotonic() + GRACE_SECONDS
            while time.monotonic() < end:
                if child.poll() is not None and not _descendants(child.pid, marker, born, reaper):
                    break
                time.sleep(0.02)
            else:
                continue
            break
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=GRACE_SECONDS)
    for stream in (child.stdin, child.stdout, child.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
    still = _descendants(child.pid, marker, born, reaper) if (not exited or left) else []
    if still:
        raise AgentError(f"the agent's processes {', '.join(map(str, still))} could not be ended")
    return outlived


def _signal_all(
    child: subprocess.Popen[bytes] | Forked,
    marker: str,
    born: int,
    reaper: int | None,
    sig: signal.Signals,
) -> None:
    if child.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, sig)
    for pid in _descendants(child.pid, marker, born, reaper):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _descendants(group: int, marker: str, born: int, reaper: int | None = None) -> list[int]:
    """Live (not zombie) processes in the agent's process group, carrying its marker, or
    (with a ``reaper``) descending from it, the agent's subreaper. Only a process started no
    earlier than the agent (``born``, in clock ticks since boot) can be one of its own: the
    others' environments are not read."""
    needle = f"{MARK}={marker}".encode()
    found: list[int] = []
    parents: dict[int, int] = {}
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        pid = int(entry.name)
        try:
            fields = _proc(pid, "stat").rsplit(b")", 1)[1].split()
            state, ppid, pgrp, started = fields[0], int(fields[1]), int(fields[2]), int(fields[19])
            if state in (b"Z", b"X") or started < born:
                continue
            if pgrp == group or needle in _proc(pid, "environ").split(b"\0"):
                found.append(pid)
            else:
                parents[pid] = ppid
        except (OSError, ValueError, IndexError):
            continue  # gone, or not ours to read
    if reaper is not None:  # the subreaper's children and theirs, to any depth
        ancestors = {reaper, *found}
        grown = True
        while grown:
            grown = False
            for pid, ppid in list(parents.items()):
                if ppid in ancestors:
                    found.append(pid)
                    ancestors.add(pid)
                    del parents[pid]
                    grown = True
    return found


def _command(pid: int) -> str:
    try:
        words = _proc(pid, "cmdline").split(b"\0")
    except OSError:
        return "?"
    text = " ".join(" ".join(w.decode("utf-8", "replace").split()) for w in words if w)
    return text if len(text) <= 80 else text[:79] + "…"


def _born(pid: int) -> int:
    """When the process started, in clock ticks since boot (0 when it cannot be read: then
    every process is looked at)."""
    try:
        return int(_proc(pid, "stat").rsplit(b")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return 0


def _proc(pid: int, name: str) -> bytes:
    """One file of ``/proc/<pid>`` (the OS's own, not input), at most 1 MiB of it."""
    with open(f"/proc/{pid}/{name}", "rb") as file:
        return file.read(STDOUT_LIMIT)
