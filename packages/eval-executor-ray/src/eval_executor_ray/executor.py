"""``eval sweep --executor ray``: a Sweep's Trials as tasks of Ray actors.

The driver (the ``eval`` process) keeps the Sweep: the ceilings before each launch, the trial
log, the transcripts, the order. For each leg it puts the Corpus's files and its plug-in set in
Ray's object store by content hash (:mod:`eval_executor_ray.bundle`), starts one
:class:`~eval_executor_ray.worker.TrialWorker` actor per CPU it needs (one CPU each, spread over
the nodes) and has every one check itself before the first Trial. A Trial is one call of a
worker's ``run``: several run at once on a worker's threads when ``--jobs`` asks for more
Trials in flight than there are CPUs (a Trial that waits on a model needs no CPU of its own).

Without ``--address`` a local Ray instance is started on loopback for the Sweep and stopped
after it; ``--address auto`` joins the running cluster, ``ray://HOST:10001`` reaches one
through Ray Client (Ray's own ``RAY_ADDRESS`` is honoured as Ray does).
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from eval_core.hosts import (
    CaseBase,
    Done,
    Evidence,
    ExecutorRefused,
    TrialResult,
    Work,
    WorkerLost,
    current_lock,
    encode_lock,
)
from eval_executor_ray.bundle import key_of, pack
from eval_executor_ray.worker import Setup, TrialWorker

POLL_S = 0.2  # how often a wait on Ray lets a Ctrl-C (or SIGTERM) through
READY_WITHIN_S = 600.0  # workers that are not placed and ready by then: the cluster is full
LOCAL_ENVIRONMENT = {
    # a local instance lives on loopback (Ray would otherwise bind the machine's address)
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    # the workers share this process's environment: no packaging of it under `uv run`
    "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0",
}


def _line(exc: BaseException) -> str:
    """An exception as one short line (Ray's own messages run to many)."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:400]}"


class RayExecutor:
    """The executor ``ray`` (:class:`eval_core.hosts.Executor`)."""

    name = "ray"

    def __init__(self, address: str | None) -> None:
        self.address = address
        self._owned = False  # this executor started Ray (and stops it)

    @property
    def local(self) -> bool:
        return self.address is None and not os.environ.get("RAY_ADDRESS")

    def _connect(self, note: Callable[[str], None]) -> Any:
        if self.local:
            for name, value in LOCAL_ENVIRONMENT.items():
                os.environ.setdefault(name, value)
        elif self.address is not None:
            _probe(self.address)
        os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # Ray's C++ side on stderr
        import logging

        import ray as typed

        ray: Any = typed  # Ray's own annotations are partial
        if ray.is_initialized():
            return ray  # a driver that connected already (a Matrix's later leg, a test)
        started = time.perf_counter()
        main = threading.current_thread() is threading.main_thread()
        sigterm = signal.getsignal(signal.SIGTERM) if main else None
        try:
            if self.local:
                try:
                    ray.init(
                        include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR
                    )
                except Exception:  # Ray waits a fixed 30 s for its node: once more when busy
                    ray.shutdown()
                    ray.init(
                        include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR
                    )
            else:
                ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR)
        except Exception as exc:
            where = "a local Ray instance" if self.local else f"the Ray cluster {self.address}"
            raise ExecutorRefused(f"cannot start or reach {where}: {_line(exc)}") from None
        finally:
            if main and sigterm is not None:
                signal.signal(signal.SIGTERM, sigterm)  # ray.init takes SIGTERM; CI's cancel
        self._owned = True
        took = time.perf_counter() - started
        cpus = int(ray.cluster_resources().get("CPU", 0))
        nodes = len([n for n in ray.nodes() if n.get("Alive")])
        what = "a local Ray instance" if self.local else f"Ray cluster {self.address or 'auto'}"
        note(f"Ray  {what}: {nodes} node(s), {cpus} CPU(s), ready in {took:.1f} s")
        return ray

    def open(self, work: Work) -> RayLauncher:
        note = work.note or (lambda _line: None)
        ray = self._connect(note)
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        capacity = work.jobs or cpus
        count = min(capacity, cpus)
        per = math.ceil(capacity / count)
        try:
            ray.cloudpickle.dumps(work.binding)
        except Exception as exc:
            raise ExecutorRefused(
                f"the binding {work.binding.model_id!r} cannot travel to Ray workers: {_line(exc)}"
            ) from None
        corpus_key, corpus_bytes = pack(work.corpus)
        plugins_bytes = encode_lock(current_lock(work.plugins, work.host))
        setup = Setup(
            corpus_hash=work.corpus.hash,
            corpus_key=corpus_key,
            plugins_key=key_of(plugins_bytes),
            host=work.host,
            host_options=dict(work.host_options),
            judge=work.corpus.judge,
            unlocked=work.unlocked,
            evidence=work.evidence,
            planned=work.planned,
        )
        corpus_ref, plugins_ref = ray.put(corpus_bytes), ray.put(plugins_bytes)
        binding_ref = ray.put(work.binding)
        remote = ray.remote(TrialWorker).options(
            num_cpus=1, max_concurrency=per, scheduling_strategy="SPREAD"
        )
        started = time.perf_counter()
        workers = [remote.remote(binding_ref) for _ in range(count)]
        launcher = RayLauncher(ray, workers, per)
        try:
            answers = launcher.gather(
                [w.prepare.remote(setup, corpus_ref, plugins_ref) for w in workers],
                READY_WITHIN_S,
            )
        except BaseException:
            launcher.abandon()
            raise
        refusals = [a for a in answers if a]
        if refusals:
            launcher.abandon()
            more = f" (and {len(refusals) - 1} more worker(s))" if len(refusals) > 1 else ""
            raise ExecutorRefused(refusals[0] + more)
        note(
            f"Ray  {count} worker(s) x {per} Trial(s) at once, ready in "
            f"{time.perf_counter() - started:.1f} s; Corpus {corpus_key[:19]} "
            f"({len(corpus_bytes) // 1024} KiB) checked on each"
        )
        return launcher

    def close(self) -> None:
        if self._owned:
            import ray

            self._owned = False
            ray.shutdown()


def _probe(address: str) -> None:
    """A ``HOST:PORT`` that nothing answers at is refused at once (Ray itself would retry
    for minutes); ``auto`` and ``ray://`` are left to Ray."""
    if address == "auto" or address.startswith("ray://"):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ExecutorRefused(
            f"--address {address!r}: expected auto, ray://HOST:PORT or HOST:PORT (the GCS)"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_S) as sock:
            # The GCS is a gRPC server: to HTTP/2's client preface it answers with a frame of
            # its own. A port that accepts and stays silent would keep Ray retrying for minutes.
            sock.sendall(_H2_PREFACE)
            answered = sock.recv(9)
    except TimeoutError:
        answered = b""
    except OSError as exc:
        raise ExecutorRefused(
            f"nothing answers at {address} ({exc.strerror or exc}): is a Ray head running "
            "there (ray start --head)?"
        ) from None
    if not answered:
        raise ExecutorRefused(
            f"{address} accepts connections but does not answer as a Ray GCS within "
            f"{PROBE_S:g} s: is this the head's GCS port (ray start --head prints it)?"
        )


PROBE_S = 5.0
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
"""HTTP/2's client connection preface, then an empty SETTINGS frame."""


class RayLauncher:
    """A leg's Trials in flight on its workers (:class:`eval_core._plugins.executor.Launcher`)."""

    def __init__(self, ray: Any, workers: list[Any], per: int) -> None:
        self._ray = ray
        self._workers = workers
        self._load = [0] * len(workers)
        self._refs: dict[Any, tuple[int, int]] = {}
        self._lost: WorkerLost | None = None
        self._killed = False
        self.capacity = len(workers) * per

    def gather(self, refs: list[Any], within: float) -> list[Any]:
        """Every result of ``refs`` (interruptible); a worker that cannot start refuses."""
        deadline = time.monotonic() + within
        waiting = list(refs)
        while waiting:
            if time.monotonic() > deadline:
                raise ExecutorRefused(
                    f"{len(waiting)} Ray worker(s) were not placed and ready within "
                    f"{within:.0f} s (is the cluster out of free CPUs?)"
                )
            _, waiting = self._ray.wait(waiting, num_returns=len(waiting), timeout=POLL_S)
        try:
            return list(self._ray.get(refs))
        except self._ray.exceptions.RayError as exc:
            raise ExecutorRefused(f"a Ray worker could not start: {_line(exc)}") from None

    def launch(self, key: int, case: CaseBase, trial: int) -> None:
        index = min(range(len(self._workers)), key=self._load.__getitem__)
        ref = self._workers[index].run.remote(case.id, trial)
        self._refs[ref] = (key, index)
        self._load[index] += 1

    def wait(self) -> list[Done]:
        if self._lost is not None:
            raise self._lost
        ray = self._ray
        waiting = list(self._refs)
        ready: list[Any] = []
        while not ready:
            ready, waiting = ray.wait(waiting, num_returns=1, timeout=POLL_S)
        if waiting:
            more, _ = ray.wait(waiting, num_returns=len(waiting), timeout=0)
            ready.extend(more)
        done: list[Done] = []
        for ref in ready:
            key, index = self._refs.pop(ref)
            self._load[index] -= 1
            try:
                result, evidence = ray.get(ref)
            except ray.exceptions.RayTaskError as exc:
                self._lost = self._lost or WorkerLost(
                    f"a Trial raised on a Ray worker: {_line(exc.cause or exc)}"
                )
                continue
            except ray.exceptions.RayError as exc:
                self._lost = self._lost or WorkerLost(
                    f"a Ray worker went away with Trials in flight: {_line(exc)}"
                )
                continue
            done.append(
                (key, _checked(result), evidence if isinstance(evidence, Evidence) else None)
            )
        if not done and self._lost is not None:
            raise self._lost
        return done

    def abandon(self) -> None:
        """Cancel the Trials in flight: the workers are killed, their Trials never recorded."""
        if self._killed:
            return
        self._killed = True
        for ref in self._refs:
            with contextlib.suppress(Exception):
                self._ray.cancel(ref)
        for worker in self._workers:
            with contextlib.suppress(Exception):
                self._ray.kill(worker, no_restart=True)
        self._refs.clear()

    def close(self) -> None:
        if self._killed:
            return
        with contextlib.suppress(Exception):
            self._ray.get([w.close.remote() for w in self._workers], timeout=60)
        self.abandon()


def _checked(result: object) -> TrialResult:
    if not isinstance(result, TrialResult):
        raise WorkerLost(f"a Ray worker answered {type(result).__name__}, not a TrialResult")
    return result
