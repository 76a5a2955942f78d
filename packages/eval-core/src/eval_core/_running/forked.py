"""Forked workers: CPU-bound Trials on every core without paying start-up again (issue 32).

``eval sweep --executor fork [--jobs N]`` runs the Trials in N children forked from the
Sweep's own process once the plug-ins, the Host and the Corpus are loaded: each child already
has every module imported and the Host made, so a worker costs a fork, not a start-up. The
runner keeps the Sweep exactly as with threads or any executor
(:mod:`eval_core._plugins.executor`): the ceilings are asked before each launch, each finished
Trial is recorded here (trial log, transcript, progress), the planned order is restored, and an
interruption abandons the Trials in flight (the children are killed, nothing of theirs is
recorded, ``--resume`` runs them again).

The children are also the boundary around the system under test's code (a Host that runs the
team's agents is swept on them by default: :func:`supervises`). What that code prints, on
stdout or stderr, goes to ``eval``'s stderr with the diagnostics, never into the Scorecard on
stdout. A child that dies with a Trial
in flight (``os._exit``, a crash) errors that Trial in one line and is replaced; a Trial past
the Host's deadline (its optional ``trial_deadline``, plus :data:`GRACE` seconds) has its child
killed and errors the same way; a child retires after any errored Trial (whatever the team's
code left behind, a blocked loop or a thread, goes with it). The exit code is the parent's,
from the Trials it recorded: nothing a child does can end the Sweep or set its code.

Where it pays: L3 and document-heavy Trials, which spend their time computing in Python (one
core each under the GIL with threads). A scripted L2 Trial takes a fraction of a millisecond:
there the one-by-one loop stays fastest and remains the default (``bench/scale.py`` prints
both). POSIX only: ``os.fork`` is refused elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import sys
import time
from typing import TYPE_CHECKING

from eval_core._plugins.executor import Done, ExecutorRefused, Work
from eval_core._plugins.host_answers import closed
from eval_core._running.fork_worker import Worker, end, receive, send, serve
from eval_core._running.trial import TrialResult
from eval_core._util.guard import PluginFault, call
from eval_core._util.stopping import held

if TYPE_CHECKING:
    from eval_core._case.case import CaseBase
    from eval_core._plugins.host import Host

NAME = "fork"
GRACE = 2.0
"""Seconds a Trial may run past the Host's own deadline (which it enforces itself, in the
child, when it can) before its child is killed."""


def supervises(host: Host, owns_agents: bool) -> bool:
    """Whether a Sweep without ``--executor`` runs on forked children anyway: when the Host runs
    the team's code (its factory :func:`~eval_core._plugins.host.owns_agents`) and can be forked
    (it says nothing in ``unforkable``). The core's own Host runs no team code: its Sweeps stay
    in this process, as fast as they were."""
    return owns_agents and unforkable(host) is None


def unforkable(host: Host) -> str | None:
    """The Host's one-line reason it cannot run in a forked child (its optional ``unforkable``
    attribute), or ``None``."""
    reason = getattr(host, "unforkable", None)
    return reason if isinstance(reason, str) and reason else None


class ForkExecutor:
    """The core's forking executor (``--executor fork``)."""

    name = NAME

    def __init__(self, address: str | None, *, supervising: bool = False) -> None:
        self.supervising = supervising  # chosen by the Sweep for a Host running team code
        self.host: Host | None = None
        """The Sweep's own Host, when the Sweep hands it over: the children inherit it as it
        is, instead of one made again for them (and closed with them)."""
        if address is not None:
            raise ExecutorRefused("--executor fork runs on this machine: it takes no --address")
        if not hasattr(os, "fork"):
            raise ExecutorRefused("--executor fork needs os.fork (POSIX)")

    def open(self, work: Work) -> _Launcher:
        return _Launcher(work, self.host)

    def close(self) -> None:
        pass


class _Launcher:
    """N forked children, one Trial in flight on each at most."""

    def __init__(self, work: Work, given: Host | None = None) -> None:
        from eval_core._loading.opening import Refused, host

        plugins = work.plugins
        # Import now what a Trial asks of the plug-in set: the children inherit it.
        self._run = (plugins.kinds, plugins.fixtures, plugins.witness_checks)
        self._owned = given is None  # a Host made here is closed here, after every child
        try:
            self._host = (
                given
                if given is not None
                else host(plugins, work.host, work.corpus.directory, work.host_options)
            )
        except Refused as exc:
            raise ExecutorRefused(str(exc)) from None
        reason = unforkable(self._host)
        prepare = getattr(self._host, "prepare_fork", None)
        if reason is None and callable(prepare):  # e.g. let go of what a child cannot share
            try:  # (an MCP session); the Host's code, so a fault is a refusal in one line
                call(None, f"prepare_fork of Host {work.host!r}", prepare)
            except PluginFault as exc:
                reason = str(exc)
        if reason is not None:
            if self._owned:
                closed(self._host)  # the refusal is the news, not how the close went
            raise ExecutorRefused(f"the Host {work.host!r} cannot run in a forked worker: {reason}")
        deadline = getattr(self._host, "trial_deadline", None)
        self._deadline = float(deadline) + GRACE if isinstance(deadline, (int, float)) else None
        self._work = work
        self.capacity = max(1, work.jobs or os.cpu_count() or 1)
        self._workers: list[Worker] = []
        self._made: dict[str, int] = {}  # every scratch made and its child (0: none yet), until
        try:  # removed: what an interruption at any point leaves, abandon() still removes
            for _ in range(self.capacity):
                self._workers.append(self._fork())
        except OSError as exc:
            self.abandon()
            raise ExecutorRefused(f"--executor fork could not start a worker: {exc}") from None
        except BaseException:
            self.abandon()
            raise

    def _fork(self) -> Worker:
        import tempfile  # here, not at the top: a Sweep that forks nothing never loads it

        for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
            with contextlib.suppress(Exception):
                stream.flush()
        with held():  # made and recorded whatever the moment of a Ctrl-C
            scratch = tempfile.mkdtemp(prefix="eval-fork-")
            self._made[scratch] = 0
        try:
            down_r, down_w = os.pipe()
            up_r, up_w = os.pipe()
            pid = os.fork()
        except BaseException:  # an OSError, or Ctrl-C right here: the scratch goes too
            self._remove(scratch)
            raise
        if pid == 0:  # the child: serve Trials until the parent closes its pipe
            tempfile.tempdir = scratch  # what the Host makes here, the parent removes
            os.environ["TMPDIR"] = scratch
            with contextlib.suppress(OSError):  # what the team's code prints goes with the
                os.dup2(2, 1)  # diagnostics, never into the Scorecard on stdout
            os.close(down_w)
            os.close(up_r)
            for other in self._workers:
                os.close(other.requests)
                os.close(other.replies)
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides, and kills
                serve(down_r, up_w, self._host, self._work, self._run)
                code = 0
            finally:
                os._exit(code)
        self._made[scratch] = pid
        os.close(down_r)
        os.close(up_w)
        return Worker(pid, down_w, up_r, scratch)

    def _remove(self, scratch: str) -> None:
        shutil.rmtree(scratch, ignore_errors=True)
        self._made.pop(scratch, None)

    def launch(self, key: int, case: CaseBase, trial: int) -> None:
        worker = next(w for w in self._workers if w.busy is None)
        worker.busy, worker.trial, worker.since = key, (case.id, trial), time.monotonic()
        try:
            send(worker.requests, (key, case.id, trial))
        except OSError:  # it went away between Trials: a fresh child takes the Trial
            worker = self._replace(worker)
            worker.busy, worker.trial, worker.since = key, (case.id, trial), time.monotonic()
            send(worker.requests, (key, case.id, trial))

    def wait(self) -> list[Done]:
        """The Trials that finished, were lost with their child, or outlived the deadline."""
        import pickle

        busy = {w.replies: w for w in self._workers if w.busy is not None}
        timeout = None
        if self._deadline is not None:
            first = min(w.since for w in busy.values())
            timeout = max(0.0, first + self._deadline - time.monotonic())
        ready, _, _ = select.select(list(busy), [], [], timeout)
        done: list[Done] = []
        for fd in ready:
            worker = busy[fd]
            try:
                message = receive(fd)
            except (OSError, EOFError, pickle.UnpicklingError):
                message = None
            if message is None:
                status = self._reap(worker, kill=False)
                done.append(self._lost(worker, f"its worker process {status} during the Trial"))
                continue
            worker.busy = None
            if message[1].outcome == "errored":
                self._replace(worker, kill=False)  # it retires after an errored Trial
            done.append(message)
        if self._deadline is not None:
            now = time.monotonic()
            for worker in list(busy.values()):
                if worker.busy is not None and now - worker.since >= self._deadline:
                    self._reap(worker, kill=True)
                    done.append(
                        self._lost(
                            worker,
                            f"it outlived the Host's deadline ({self._deadline - GRACE:g} s, "
                            f"+{GRACE:g} s): its worker process was killed",
                        )
                    )
        return done

    def _lost(self, worker: Worker, what: str) -> Done:
        """The errored Trial a child took with it; a fresh child takes its place."""
        key = worker.busy
        assert key is not None
        case_id, number = worker.trial
        self._replace(worker)
        result = TrialResult(
            case_id=case_id,
            trial=number,
            outcome="errored",
            error=f"the system under test ended the Trial: {what}",
            duration_ms=round((time.monotonic() - worker.since) * 1000, 3),
        )
        return key, result, None

    def _reap(self, worker: Worker, *, kill: bool) -> str:
        """End the worker's process (given a moment to end itself unless ``kill``), close its
        pipes and drop it; how it ended, as words."""
        self._workers.remove(worker)
        for fd in (worker.requests, worker.replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        said = end(worker.pid, kill=kill)
        self._remove(worker.scratch)
        return said

    def _replace(self, worker: Worker, *, kill: bool = True) -> Worker:
        if worker in self._workers:
            self._reap(worker, kill=kill)
        fresh = self._fork()
        self._workers.append(fresh)
        return fresh

    def abandon(self) -> None:
        """Kill every child and remove every scratch, a worker's or one an interruption left
        between making it and recording its worker."""
        for pid in self._made.values():
            if pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for scratch, pid in list(self._made.items()):  # killed: reaped, what it made removed
            if pid:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
            self._remove(scratch)

    def close(self) -> None:
        workers, self._workers = self._workers, []
        for worker in workers:
            for fd in (worker.requests, worker.replies):
                with contextlib.suppress(OSError):
                    os.close(fd)
        for worker in workers:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
            self._remove(worker.scratch)
        self.abandon()  # anything an interruption left unrecorded
        if self._owned:
            self._host.close()
