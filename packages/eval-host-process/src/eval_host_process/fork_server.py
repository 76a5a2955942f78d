"""The fork-server of a Python agent (host option ``start``, ``fork-server`` by default): the
interpreter's start and the import of the agent's SDKs paid once per Sweep, by a *zygote*
(:mod:`.zygote`, run by the team's own Python), instead of once per Trial; each Trial's agent is
a fresh process forked from it, in a session of its own, given the Trial's stdin, stdout,
stderr, environment and working directory, running the module as ``__main__``.

Trials stay independent: every agent process is forked from the zygote, which never runs a
Trial, so a module's state is what its import left, never what an earlier Trial did to it. The
zygote is the team's code: its start is bounded like a Host's load of the team's code
(:func:`eval_core.hosts.load_seconds`); one that dies or hangs there errors every Trial of its
agent in one line; it ends when the Host closes or the harness goes away (it watches a pipe only
the harness holds). A command that is not a plain ``python -m MODULE ...`` or ``python PATH.py
...``, a platform without ``fork`` or descriptor passing, or a module whose imports start
threads (a fork copies no thread) is started per Trial.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import selectors
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from eval_core.hosts import load_seconds
from eval_host_process.process import STDERR_KEPT, AgentError

PYTHON = re.compile(r"python(\d+(\.\d+)*)?$")
ZYGOTE = Path(__file__).with_name("zygote.py")
LINE_BYTES = 256  # what a supervisor says: "pid A S", "status N"


@dataclass(frozen=True, slots=True)
class Target:
    """What a Python agent's command runs: an interpreter, a module (``-m``) or a script
    (``path``), and the arguments the agent reads in ``sys.argv``."""

    python: str
    mode: str
    name: str
    args: tuple[str, ...]

    @property
    def key(self) -> tuple[str, str, str]:
        """One zygote serves every command of the same interpreter and module."""
        return self.python, self.mode, self.name

    def __str__(self) -> str:
        return (
            f"{self.python} -m {self.name}" if self.mode == "-m" else f"{self.python} {self.name}"
        )


def can_fork() -> bool:
    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


def target_of(argv: Sequence[str]) -> Target | None:
    """What ``argv`` runs, when it is a plain ``python -m MODULE ...`` or ``python PATH.py
    ...`` (no interpreter option: the zygote could not apply it per Trial); else ``None``."""
    if len(argv) < 2 or not PYTHON.match(Path(argv[0]).name):
        return None
    if argv[1] == "-m":
        if len(argv) < 3 or not all(part.isidentifier() for part in argv[2].split(".")):
            return None
        return Target(argv[0], "-m", argv[2], tuple(argv[3:]))
    if argv[1].startswith("-") or not argv[1].endswith(".py"):
        return None
    return Target(argv[0], "path", argv[1], tuple(argv[2:]))


class _End:
    """The harness's end of one of the agent's standard streams (what :mod:`.process` reads,
    writes and closes)."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd

    def fileno(self) -> int:
        if self.fd is None:
            raise ValueError("closed")
        return self.fd

    def close(self) -> None:
        fd, self.fd = self.fd, None
        if fd is not None:
            os.close(fd)


class Forked:
    """One agent process forked by the zygote, as :mod:`.process` drives a ``Popen``: its pid
    and streams, its status as its supervisor reports it, and the supervisor itself (the
    subreaper whose children a daemon of the agent becomes)."""

    def __init__(self, conn: socket.socket, pid: int, reaper: int, ends: Sequence[int]) -> None:
        self._conn, self.pid, self.reaper = conn, pid, reaper
        self.stdin, self.stdout, self.stderr = (_End(fd) for fd in ends)
        self.returncode: int | None = None
        self.lost: str | None = None
        self._said = b""

    def poll(self) -> int | None:
        if self.returncode is None:
            self._hear(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired("agent", timeout or 0.0)
            self._hear(left)
        return self.returncode

    def _hear(self, timeout: float | None) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._conn, selectors.EVENT_READ)
            if not selector.select(timeout):
                return
        try:
            data = self._conn.recv(LINE_BYTES)
        except OSError:
            data = b""
        if not data:  # the supervisor is gone: the agent's status cannot be known
            self.lost = "the fork-server's supervisor of the agent ended before the agent"
            self.returncode = -signal.SIGKILL
            return
        self._said = (self._said + data)[-LINE_BYTES:]
        self._parse()

    def _parse(self) -> None:
        for line in self._said.split(b"\n")[:-1]:
            words = line.split()
            if len(words) == 2 and words[0] == b"status" and words[1].lstrip(b"-").isdigit():
                self.returncode = int(words[1])

    def hang_up(self) -> None:
        """Let the supervisor go (once everything the agent started is ended)."""
        with contextlib.suppress(OSError):
            self._conn.close()


class ForkServer:
    """One zygote: started once (:meth:`start`), asked for a fresh agent per Trial
    (:meth:`open`), ended by :meth:`close` or when the harness's process ends."""

    def __init__(self, target: Target, cwd: Path, env: Mapping[str, str], seconds: float) -> None:
        self.target, self.cwd, self.env, self.seconds = target, cwd, dict(env), seconds
        self.failure: str | None = None  # why every Trial of its agents errors
        self.spawn = False  # its imports started threads: the command is started per Trial
        self._path: str | None = None
        self._owner = os.getpid()
        self._zygote: subprocess.Popen[bytes] | None = None
        self._lifeline: int | None = None
        self._scratch = ""
        self._nonce = secrets.token_hex(8)  # what marks the zygote's own line on its stdout

    def start(self) -> None:
        self._scratch = tempfile.mkdtemp(prefix="eval-zygote-")
        path = os.path.join(self._scratch, "s")
        os.mkdir(os.path.join(self._scratch, "tmp"))
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        read, self._lifeline = os.pipe()
        try:
            listener.bind(path)
            listener.listen(64)
            argv = [self.target.python, str(ZYGOTE), str(listener.fileno()), str(read)]
            argv += [self.target.mode, self.target.name, self._nonce]
            env = {**self.env, "TMPDIR": os.path.join(self._scratch, "tmp")}
            try:
                self._zygote = subprocess.Popen(
                    argv,
                    cwd=self.cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    pass_fds=(listener.fileno(), read),
                    start_new_session=True,
                )
            except OSError as exc:
                self.failure = f"{self._named()} could not start: {exc.strerror or exc}"
                self.close()
                return
        except BaseException:
            self.close()
            raise
        finally:
            listener.close()
            os.close(read)
        try:
            said, tail = self._first_line()
        except BaseException:
            self.close()
            raise
        if said == "ready":
            self._path = path
            return
        if said.startswith("threads "):
            self.spawn = True
        elif said == "timeout":
            self.failure = (
                f"{self._named()} did not import what the agent imports within "
                f"{self.seconds:g} s; it was ended (EVAL_HOST_LOAD_SECONDS sets the bound)"
            )
        else:
            code: int | str | None = None
            if self._zygote is not None:
                try:
                    code = self._zygote.wait(timeout=self.seconds)
                except subprocess.TimeoutExpired:
                    code = "?"
            quoted = f" (stderr: {tail})" if tail else ""
            self.failure = (
                f"{self._named()} exited with status {code} while importing what the agent "
                f"imports{quoted}; host option start=spawn starts the agent per Trial instead"
            )
        self.close()

    def _named(self) -> str:
        return f"the agent's fork-server ({self.target})"

    def _first_line(self) -> tuple[str, str]:
        """The zygote's own line (``ready``, ``threads N``; ``timeout`` past the bound, ``""`` if
        it died first), found by its nonce among what the team's imports print, and stderr's
        last line that says something."""
        assert self._zygote is not None and self._zygote.stdout and self._zygote.stderr
        out, err = b"", bytearray()
        mark = self._nonce.encode() + b" "
        deadline = time.monotonic() + self.seconds
        with selectors.DefaultSelector() as selector:
            selector.register(self._zygote.stdout, selectors.EVENT_READ)
            selector.register(self._zygote.stderr, selectors.EVENT_READ)
            while selector.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    return "timeout", ""
                for key, _ in selector.select(left):
                    data = os.read(key.fd, 65536)
                    if not data:
                        selector.unregister(key.fileobj)
                    elif key.fileobj is self._zygote.stdout:
                        *lines, out = (out + data).split(b"\n")
                        out = out[-LINE_BYTES:]
                        for line in lines:
                            if line.startswith(mark):
                                return line[len(mark) :].decode("ascii", "replace").strip(), ""
                    else:
                        err = (err + data)[-STDERR_KEPT:]
        told = [" ".join(x.split()) for x in err.decode("utf-8", "replace").splitlines()]
        said = next((x for x in reversed(told) if any(c.isalnum() for c in x)), "")
        return "", said[:200]

    def open(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> Forked:
        """A fresh agent process for one Trial, running ``argv``'s arguments."""
        target = target_of(argv)
        if self._path is None or target is None:
            raise AgentError(self.failure or f"{self._named()} is not running")
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        pipes = [os.pipe() for _ in range(3)]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        try:
            conn.settimeout(self.seconds)
            conn.connect(self._path)
            request = {"args": list(target.args), "env": dict(env), "cwd": str(cwd)}
            message = json.dumps(request).encode() + b"\n"
            sent = socket.send_fds(conn, [message], theirs)
            conn.sendall(message[sent:])
            said = b""
            while b"\n" not in said and len(said) < LINE_BYTES:
                more = conn.recv(LINE_BYTES)
                if not more:
                    break
                said += more
            conn.settimeout(None)
        except OSError as exc:
            conn.close()
            for fd in ours:
                os.close(fd)
            raise AgentError(f"{self._named()} could not start the agent: {exc}") from None
        finally:
            for fd in theirs:
                os.close(fd)
        words = said.split(b"\n", 1)[0].split()
        if len(words) != 3 or words[0] != b"pid" or not all(w.isdigit() for w in words[1:]):
            conn.close()
            for fd in ours:
                os.close(fd)
            raise AgentError(f"{self._named()} did not start the agent (it said {said[:80]!r})")
        forked = Forked(conn, int(words[1]), int(words[2]), ours)
        forked._said = said.split(b"\n", 1)[1]
        forked._parse()
        return forked

    def close(self) -> None:
        """End the zygote (this process started it) and remove its folder."""
        self._path = None
        if self._lifeline is not None:
            with contextlib.suppress(OSError):
                os.close(self._lifeline)
            self._lifeline = None
        zygote, self._zygote = self._zygote, None
        if zygote is not None and os.getpid() == self._owner:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(zygote.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                zygote.wait(timeout=5)
            for stream in (zygote.stdout, zygote.stderr):
                if stream is not None:
                    stream.close()
        if self._scratch and os.getpid() == self._owner:
            shutil.rmtree(self._scratch, ignore_errors=True)


class ForkServers:
    """A Host's zygotes, one per interpreter and module, each started once: before the Sweep's
    workers are forked (:meth:`start`, which they then share), else at its first Trial."""

    def __init__(self, cwd: Path, env: Mapping[str, str], seconds: float | None = None) -> None:
        self.cwd, self.env = cwd, dict(env)
        self.seconds = load_seconds() if seconds is None else seconds
        self._servers: dict[tuple[str, str, str], ForkServer] = {}
        self._lock = threading.Lock()

    def start(self, commands: Sequence[Sequence[str]]) -> None:
        for argv in commands:
            self.server_for(argv)

    def server_for(self, argv: Sequence[str]) -> ForkServer | None:
        """The zygote that forks ``argv``'s agent, or ``None``: start the command itself."""
        target = target_of(argv) if can_fork() else None
        if target is None:
            return None
        with self._lock:
            server = self._servers.get(target.key)
            if server is None:
                server = ForkServer(target, self.cwd, self.env, self.seconds)
                self._servers[target.key] = server
                server.start()
        return None if server.spawn else server

    def close(self) -> None:
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.close()
