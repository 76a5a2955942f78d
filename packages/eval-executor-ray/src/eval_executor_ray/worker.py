"""The Trial worker: a Ray actor that runs one Sweep's Trials where Ray placed it.

It is made ready once (:meth:`TrialWorker.prepare`): the Corpus's files and the driver's
plug-in set arrive by content hash and are checked against it; the worker's own installed
plug-in set must be the locked one (or, for an ``--unlocked`` Sweep, the driver's); it makes the
Host by name from the Soul it received, loads the Corpus with its own plug-ins and holds the
result to the driver's corpusHash. Any difference is a refusal: one line naming the worker and
what differs, and no Trial runs there. Then each :meth:`TrialWorker.run` is one Trial, run by
the core's own :func:`~eval_core.hosts.run_trial` exactly as the driver's threads would.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass

import msgspec

from eval_core.hosts import (
    LOCK_NAME,
    Binding,
    CaseBase,
    Corpus,
    CorpusError,
    Evidence,
    Host,
    Loader,
    Lock,
    PluginError,
    PluginSet,
    SweepResources,
    TrialResult,
    agents_owned,
    current_lock,
    host_directory,
    load_plugins,
    lock_differences,
    run_trial,
)
from eval_executor_ray.bundle import BundleError, key_of, place, unpack


@dataclass(frozen=True, slots=True)
class Setup:
    """What the driver tells every worker of a leg, besides the bytes sent by hash."""

    corpus_hash: str
    corpus_key: str
    plugins_key: str
    host: str
    host_options: Mapping[str, str]
    judge: str  # the Judge's identity the driver's corpusHash was made with
    unlocked: bool
    evidence: bool
    planned: frozenset[str]  # the Cases this leg will run: their shared resources start early


@dataclass(slots=True)
class _Ready:
    plugins: PluginSet
    host: Host
    corpus: Corpus
    cases: dict[str, CaseBase]
    shared: SweepResources


def where() -> str:
    """This worker, for a refusal: its host name and process id."""
    return f"worker {socket.gethostname()} pid {os.getpid()}"


class TrialWorker:
    """One Sweep's state in one Ray worker process; Trials run on its threads."""

    def __init__(self, binding: Binding) -> None:
        self._binding = binding
        self._ready: _Ready | None = None
        self._evidence = False

    def prepare(self, setup: Setup, corpus_bytes: bytes, plugins_bytes: bytes) -> str | None:
        """Ready this worker for the Sweep; ``None``, or the one line saying why it refuses."""
        try:
            self._ready = self._prepare(setup, corpus_bytes, plugins_bytes)
        except _RefusedError as exc:
            return f"{where()}: {exc}"
        self._evidence = setup.evidence
        return None

    def _prepare(self, setup: Setup, corpus_bytes: bytes, plugins_bytes: bytes) -> _Ready:
        try:
            bundle = unpack(setup.corpus_key, corpus_bytes)
        except BundleError as exc:
            raise _RefusedError(str(exc)) from None
        if key_of(bytes(plugins_bytes)) != setup.plugins_key:
            raise _RefusedError(
                f"the plug-in set received hashes to {key_of(bytes(plugins_bytes))}, "
                f"not {setup.plugins_key}"
            )
        try:
            plugins = load_plugins()
        except PluginError as exc:
            raise _RefusedError(f"its plug-in set is broken: {exc}") from None
        installed = current_lock(plugins, setup.host)
        if setup.unlocked:
            wanted = msgspec.json.decode(plugins_bytes, type=Lock)
            against = "the driver's (an --unlocked Sweep)"
        else:
            data = bundle.files.get(LOCK_NAME)
            if data is None:
                raise _RefusedError("the Corpus arrived without its eval.lock")
            try:
                wanted = msgspec.json.decode(data, type=Lock)
            except msgspec.MsgspecError as exc:
                raise _RefusedError(f"the Corpus's eval.lock does not decode: {exc}") from None
            against = LOCK_NAME
        diffs = lock_differences(wanted, installed)
        if diffs:
            raise _RefusedError(
                f"its installed plug-ins differ from {against}: " + "; ".join(diffs)
            )
        directory = place(setup.corpus_key, bundle)
        factory = plugins.hosts.get(setup.host)
        start = host_directory(factory, directory) if factory is not None else None
        if start is None or factory is None:
            what = "no Eval Soul arrived" if factory is not None else f"no Host {setup.host!r}"
            raise _RefusedError(f"cannot make the Host: {what}")
        owned = agents_owned(factory)
        try:
            host = factory(start, **dict(setup.host_options))
        except Exception as exc:
            what = "its agents" if owned else "the Eval Soul"
            raise _RefusedError(f"the Host {setup.host!r} cannot load {what}: {exc}") from None
        try:
            loader = Loader(plugins, host, judge=setup.judge, needs_soul=not owned)
            corpus = loader.load(directory)
        except CorpusError as exc:
            host.close()
            first = str(exc).splitlines()
            raise _RefusedError(f"the Corpus does not load here: {' / '.join(first[:3])}") from None
        if corpus.hash != setup.corpus_hash:
            host.close()
            raise _RefusedError(
                f"the Corpus loaded here hashes to {corpus.hash}, the driver's to "
                f"{setup.corpus_hash}"
            )
        shared = SweepResources()
        for registered in plugins.fixtures:
            warm = registered.fixture.warm
            planned = [c for c in corpus.cases if c.id in setup.planned]
            if warm is not None and any(registered.fixture.applies_to(c) for c in planned):
                shared.warm(warm)
        return _Ready(plugins, host, corpus, {c.id: c for c in corpus.cases}, shared)

    def run(self, case_id: str, trial: int) -> tuple[TrialResult, Evidence | None]:
        """One Trial, and its Evidence when the driver keeps transcripts."""
        ready = self._ready
        if ready is None:
            raise RuntimeError("the Trial worker was never made ready")
        seen: list[Evidence] = []
        result = run_trial(
            ready.cases[case_id],
            trial,
            ready.host,
            self._binding,
            ready.plugins.kinds,
            ready.plugins.fixtures,
            ready.shared,
            seen.append if self._evidence else None,
            ready.plugins.witness_checks,
        )
        return result, (seen[-1] if seen else None)

    def close(self) -> None:
        """Stop what the Sweep started here (shared fixtures, the Host's temporary files)."""
        ready, self._ready = self._ready, None
        if ready is not None:
            try:
                ready.shared.close()
            finally:
                ready.host.close()
        close = getattr(self._binding, "close", None)
        if callable(close):
            close()


class _RefusedError(Exception):
    pass
