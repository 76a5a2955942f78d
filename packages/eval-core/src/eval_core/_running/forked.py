"""Forked workers: CPU-bound Trials on every core without paying start-up again (issue 32).

``eval sweep --executor fork [--jobs N]`` runs the Trials in N children forked from the
Sweep's own process once the plug-ins, the Host and the Corpus are loaded: each child already
has every module imported and the Host made, so a worker costs a fork, not a start-up. The
runner keeps the Sweep exactly as with threads or any executor
(:mod:`eval_core._plugins.executor`): the ceilings are asked before each launch, each finished
Trial is recorded here (trial log, transcript, progress), the planned order is restored, and an
interruption abandons the Trials in flight (the children are killed, nothing of theirs is
recorded, ``--resume`` runs them again). A child that dies with a Trial in flight ends the
Sweep partial (:class:`~eval_core._plugins.executor.WorkerLost`).

Where it pays: L3 and document-heavy Trials, which spend their time computing in Python (one
core each under the GIL with threads). A scripted L2 Trial takes a fraction of a millisecond:
there the one-by-one loop stays fastest and remains the default (``bench/scale.py`` prints
both). POSIX only: ``os.fork`` is refused elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import shutil
import signal
import struct
import tempfile
from typing import TYPE_CHECKING, Any

from eval_core._plugins.executor import Done, ExecutorRefused, Work, WorkerLost

if TYPE_CHECKING:
    from eval_core._case.case import CaseBase

NAME = "fork"
_SIZE = struct.Struct("!Q")


class ForkExecutor:
    """The core's forking executor (``--executor fork``)."""

    name = NAME

    def __init__(self, address: str | None) -> None:
        if address is not None:
            raise ExecutorRefused("--executor fork runs on this machine: it takes no --address")
        if not hasattr(os, "fork"):
            raise ExecutorRefused("--executor fork needs os.fork (POSIX)")

    def open(self, work: Work) -> _Launcher:
        return _Launcher(work)

    def close(self) -> None:
        pass


class _Worker:
    __slots__ = ("busy", "pid", "replies", "requests", "scratch")

    def __init__(self, pid: int, requests: int, replies: int, scratch: str) -> None:
        self.pid, self.requests, self.replies = pid, requests, replies
        self.scratch = scratch  # the child's TMPDIR, removed by the parent once it is gone
        self.busy: int | None = None


class _Launcher:
    """N forked children, one Trial in flight on each at most."""

    def __init__(self, work: Work) -> None:
        from eval_core._loading.opening import Refused, host

        plugins = work.plugins
        # Import now what a Trial asks of the plug-in set: the children inherit it.
        self._run = (plugins.kinds, plugins.fixtures, plugins.witness_checks)
        try:
            self._host = host(plugins, work.host, work.corpus.directory, work.host_options)
        except Refused as exc:
            raise ExecutorRefused(str(exc)) from None
        self._work = work
        self._cases = {case.id: case for case in work.corpus.cases}
        self.capacity = max(1, work.jobs or os.cpu_count() or 1)
        self._workers: list[_Worker] = []
        try:
            for _ in range(self.capacity):
                self._workers.append(self._fork())
        except OSError as exc:
            self.abandon()
            raise ExecutorRefused(f"--executor fork could not start a worker: {exc}") from None

    def _fork(self) -> _Worker:
        scratch = tempfile.mkdtemp(prefix="eval-fork-")
        try:
            down_r, down_w = os.pipe()
            up_r, up_w = os.pipe()
            pid = os.fork()
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        if pid == 0:  # the child: serve Trials until the parent closes its pipe
            tempfile.tempdir = scratch  # what the Host makes here, the parent removes
            os.environ["TMPDIR"] = scratch
            os.close(down_w)
            os.close(up_r)
            for other in self._workers:
                os.close(other.requests)
                os.close(other.replies)
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides, and kills
                self._serve(down_r, up_w)
                code = 0
            finally:
                os._exit(code)
        os.close(down_r)
        os.close(up_w)
        return _Worker(pid, down_w, up_r, scratch)

    def _serve(self, requests: int, replies: int) -> None:
        from eval_core._plugins.fixtures import Shared
        from eval_core._running.trial import run_trial

        kinds, fixtures, checks = self._run
        shared = Shared()
        try:
            while True:
                message = _receive(requests)
                if message is None:
                    return
                key, case_id, number = message
                seen: list[Any] = []
                observe = seen.append if self._work.evidence else None
                result = run_trial(
                    self._cases[case_id],
                    number,
                    self._host,
                    self._work.binding,
                    kinds,
                    fixtures,
                    shared,
                    observe,
                    checks,
                )
                _send(replies, (key, result, seen[-1] if seen else None))
        finally:
            shared.close()  # the Host is the parent's: it closes it once, after every child

    def launch(self, key: int, case: CaseBase, trial: int) -> None:
        worker = next(w for w in self._workers if w.busy is None)
        worker.busy = key
        _send(worker.requests, (key, case.id, trial))

    def wait(self) -> list[Done]:
        busy = {w.replies: w for w in self._workers if w.busy is not None}
        ready, _, _ = select.select(list(busy), [], [])
        done: list[Done] = []
        for fd in ready:
            worker = busy[fd]
            try:
                message = _receive(fd)
            except (OSError, EOFError, pickle.UnpicklingError):
                message = None
            if message is None:
                raise WorkerLost(f"a forked worker (pid {worker.pid}) went away")
            worker.busy = None
            done.append(message)
        return done

    def abandon(self) -> None:
        for worker in self._workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGKILL)
        for worker in self._workers:  # killed: reaped, and what it made removed
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
            shutil.rmtree(worker.scratch, ignore_errors=True)

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            for fd in (worker.requests, worker.replies):
                with contextlib.suppress(OSError):
                    os.close(fd)
        for worker in workers:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
            shutil.rmtree(worker.scratch, ignore_errors=True)
        self._host.close()


def _send(fd: int, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_SIZE.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> Any:
    """One message, or ``None`` at the end of the pipe."""
    head = _read(fd, _SIZE.size)
    if head is None:
        return None
    (size,) = _SIZE.unpack(head)
    body = _read(fd, size)
    if body is None:
        raise EOFError("a message was cut short")
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
