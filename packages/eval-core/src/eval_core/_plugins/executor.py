"""The executor port: where a Sweep's Trials run, when not on this process's own threads.

The runner keeps the Sweep: it plans the Trials, asks the ceilings before each launch, records
each finished Trial (trial log, transcript, progress) on its own thread, restores the planned
order and marks an interrupted Sweep aborted. An executor only carries Trials out and brings
back what became of them. It is chosen with ``eval sweep --executor NAME [--address ADDRESS]``
and registered by a package through the entry-point group ``eval.executors`` implementing
:func:`~eval_core._plugins.hookspecs.eval_executors`. It is not part of a Corpus's pinned plug-in
set: it
changes where a Trial runs, never what it measures, so neither ``eval.lock`` nor corpusHash
names it (every worker must still run the locked plug-in set; an executor checks that).

The core's own executor is a thread pool (``--jobs N``, in :mod:`eval_core._running.runner`);
another
(Ray, in ``eval-executor-ray``) rebuilds the Sweep's pieces where it runs from :class:`Work`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, cast

import msgspec

if TYPE_CHECKING:
    from eval_core._case.case import CaseBase
    from eval_core._case.evidence import Evidence
    from eval_core._loading.corpus import Corpus
    from eval_core._plugins.host import Binding
    from eval_core._plugins.plugin_set import PluginSet
    from eval_core._running.trial import TrialResult

GROUP = "eval.executors"

Done = tuple[int, "TrialResult", "Evidence | None"]
"""A finished Trial as an executor hands it back: its launch key, its result as
:func:`~eval_core._running.trial.run_trial` returned it (the runner admits it), its Evidence if
asked."""


class ExecutorRefused(Exception):  # noqa: N818 - it names an outcome
    """The executor cannot run this Sweep (it cannot start or connect, a worker's plug-in set
    or Corpus differs, the binding cannot travel). One line for people; the command exits 2."""


class WorkerLost(Exception):  # noqa: N818 - it names an outcome
    """A worker went away with Trials in flight: the Sweep stops there, partial and aborted, and
    ``--resume`` runs the lost Trials again."""


class Work(msgspec.Struct, frozen=True):
    """What a Trial needs beside its Case, for an executor that runs it in another process.

    ``plugins`` is this process's plug-in set (checked against the lock unless ``unlocked``);
    ``host`` and ``host_options`` are how the Host was made (its factory's name and its
    ``--host-option`` settings); ``evidence`` says whether each Trial's Evidence must come back
    (for its transcript); ``jobs`` is the Trials wanted in flight, ``None`` for the executor's
    own choice; ``note`` takes a progress line for stderr (where the Trials run); ``planned``
    are the ids of the Cases still to run (a worker starts their shared resources early).
    """

    corpus: Corpus
    plugins: PluginSet
    host: str
    binding: Binding
    unlocked: bool = False
    host_options: Mapping[str, str] = msgspec.field(default_factory=dict)
    evidence: bool = False
    jobs: int | None = None
    note: Callable[[str], None] | None = None
    planned: frozenset[str] = frozenset()


class Launcher(Protocol):
    """Trials in flight on an executor, driven by the runner's loop."""

    @property
    def capacity(self) -> int:
        """Trials the runner keeps in flight (``Work.jobs``, or the executor's choice)."""
        ...

    def launch(self, key: int, case: CaseBase, trial: int) -> None:
        """Start Trial ``trial`` of ``case``; it comes back from :meth:`wait` under ``key``."""
        ...

    def wait(self) -> list[Done]:
        """Block until at least one launched Trial has finished; every finished one.

        Raises :class:`ExecutorRefused` when a worker refuses the Sweep and
        :class:`WorkerLost` when one goes away. Must let ``KeyboardInterrupt`` through promptly.
        """
        ...

    def abandon(self) -> None:
        """Cancel every Trial in flight (an interruption): none of them is ever recorded."""
        ...

    def close(self) -> None:
        """Release the workers; always called."""
        ...


class Executor(Protocol):
    """An executor of one ``eval sweep`` (all its legs)."""

    @property
    def name(self) -> str: ...

    def open(self, work: Work) -> Launcher:
        """Ready the workers for one leg (ship the Corpus, check each worker), or raise
        :class:`ExecutorRefused`. Nothing has run when it returns."""
        ...

    def close(self) -> None:
        """Disconnect (and stop what :meth:`open` started); always called."""
        ...


ExecutorFactory = Callable[[str | None], Executor]
"""Called with ``--address`` (``None`` when not given). Opens no connection yet."""


def executor(name: str, address: str | None) -> Executor:
    """The installed executor ``name``, or :class:`ExecutorRefused` naming what is installed.

    Only the entry points of ``eval.executors`` are loaded, and only here: a Sweep without
    ``--executor`` imports none of them.
    """
    from eval_core._plugins import hookspecs
    from eval_core._plugins.manager import Manager
    from eval_core._util.entrypoints import entry_points

    manager = Manager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    factories: dict[str, tuple[str, ExecutorFactory]] = {}
    for ep in entry_points(GROUP):
        dist = ep.distribution
        try:
            plugin = ep.load()
            manager.register(plugin, name=f"{dist}:{ep.name}")
            impls = manager.hook.eval_executors.get_hookimpls()
            made = next((i.function() for i in impls if i.plugin is plugin), None)
            offered: dict[str, ExecutorFactory] = dict(cast(Any, made) or {})
        except Exception as exc:
            raise ExecutorRefused(
                f"executor plug-in {dist} is broken: entry point {ep.name!r} ({ep.value}): "
                f"{type(exc).__name__}: {exc}"
            ) from None
        for key, factory in offered.items():
            if key in factories:
                raise ExecutorRefused(
                    f"executor {key!r} is registered twice: by {factories[key][0]} and by {dist}"
                )
            factories[key] = (dist, factory)
    found = factories.get(name)
    if found is None:
        known = ", ".join(sorted(factories)) or "none installed"
        hint = (
            " (pip install eval-executor-ray)" if name == "ray" and "ray" not in factories else ""
        )
        raise ExecutorRefused(f"no executor {name!r}{hint}; installed executors: {known}")
    try:
        return found[1](address)
    except ExecutorRefused:
        raise
    except Exception as exc:
        raise ExecutorRefused(
            f"executor {name!r} ({found[0]}) could not be made: {type(exc).__name__}: {exc}"
        ) from None
