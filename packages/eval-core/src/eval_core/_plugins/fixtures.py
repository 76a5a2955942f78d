"""The Trial lifecycle: a family sets up what a Case declares, then reads back what happened.

A :class:`TrialFixture` works like a pytest yield fixture around one Trial. Its function gets a
:class:`FixtureRequest`; the code before its single ``yield`` sets up (through typed Host
services), the Host then runs the Case, and the code after the ``yield`` reads back and puts a
typed record into Evidence. Fixtures set up in a defined order (plug-in, then fixture name)
and finish in reverse. Cleanup belongs in a ``finally`` around the ``yield``: it always runs,
even when the Host or another fixture failed; read-back runs only when the Trial ran.

A resource shared by a Sweep's Trials (a provider process) comes from :meth:`FixtureRequest.
shared`: a generator function started on first use and closed when the Sweep ends, like a
session-scoped pytest fixture.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from eval_core._plugins.services import ServiceError, find
from eval_core._util.guard import Origin, PluginFault, call, fault

if TYPE_CHECKING:
    from eval_core._case.case import CaseBase
    from eval_core._case.evidence import Evidence, ToolCall
    from eval_core._plugins.host import HostTrial

T = TypeVar("T")
FixtureFunction = Callable[["FixtureRequest"], Iterator[None]]
"""A generator function: set up, ``yield`` once, read back."""
Resource = Callable[[], Iterator[Any]]


class FixtureError(Exception):
    """A fixture could not set up or read back: a harness fault that errors the Trial."""


@dataclass(frozen=True, slots=True)
class TrialFixture:
    """Setup before a Trial and read-back after it, for the Cases it applies to.

    - ``field``: applies when the Case sets this Case field (its Python name); the field's
      value is ``request.value``.
    - ``applies``: or a predicate over the Case (a read-back every Case of a kind needs).
    - ``needs``: the Host services (Protocol classes) it asks for; a Case it applies to is
      refused at load when the Host lacks one.
    - ``run``: a generator function ``(request) -> Iterator[None]`` that yields once.
    - ``warm``: a shared resource (a factory ``run`` passes to ``request.shared``) worth
      starting at the beginning of a Sweep, in the background, when a planned Case needs this
      fixture: a provider process starts while other Trials run.
    """

    name: str
    run: FixtureFunction
    field: str | None = None
    applies: Callable[[CaseBase], bool] | None = None
    needs: tuple[type, ...] = ()
    warm: Resource | None = None

    def __post_init__(self) -> None:
        if (self.field is None) == (self.applies is None):
            raise TypeError(f"fixture {self.name!r}: give exactly one of field= or applies=")

    def applies_to(self, case: CaseBase) -> bool:
        if self.field is not None:
            return case.field(self.field) is not None
        assert self.applies is not None
        return bool(self.applies(case))


@dataclass(frozen=True, slots=True)
class OwnedFixture:
    """A fixture and the plug-in that shipped it (named in every error)."""

    fixture: TrialFixture
    origin: Origin
    owns: frozenset[str] | None = None
    """The plug-in's fields and kinds when ``applies`` is marked ``own_cases``: a Case that
    uses none of them is not asked."""
    plugin: str = ""
    """The registered plug-in (``distribution:entry point``): a distribution may ship several,
    and each one's manifest lists only its own fixtures."""

    @property
    def owner(self) -> str:
        return self.origin.label

    @property
    def label(self) -> str:
        return f"fixture {self.fixture.name!r} of {self.owner}"

    def applies_to(self, case: CaseBase) -> bool:
        """Whether the fixture applies; a raising ``applies`` is a :class:`PluginFault`."""
        fixture = self.fixture
        if fixture.applies is None:
            return fixture.applies_to(case)
        if self.owns is not None and not uses_any(case, self.owns):
            return False
        what = f"the applies= predicate of fixture {fixture.name!r}"
        return bool(call(self.origin, what, fixture.applies, case))


def uses_any(case: CaseBase, names: frozenset[str]) -> bool:
    """Whether the Case sets one of ``names`` as a Case field or uses one as a kind."""
    if not names.isdisjoint([e.kind_name for e in case.expect]):
        return True
    return any(getattr(case, name) is not None for name in _fields_of(type(case), names))


@functools.cache
def _fields_of(case_type: type, names: frozenset[str]) -> tuple[str, ...]:
    """Which of ``names`` the Case type has at all (the rest are kinds): asked every Trial,
    answered once per type and plug-in."""
    return tuple(sorted(name for name in names if hasattr(case_type, name)))


class SweepResources:
    """The Sweep-scoped resources fixtures asked for, closed in reverse when the Sweep ends."""

    __slots__ = ("_lock", "_locks", "_open", "_values", "_warming")

    def __init__(self) -> None:
        self._values: dict[Resource, Any] = {}
        self._open: list[Iterator[Any]] = []
        self._lock = threading.Lock()  # Trials of one Sweep may run at once
        self._locks: dict[Resource, threading.Lock] = {}
        self._warming: list[threading.Thread] = []

    def get(self, factory: Callable[[], Iterator[T]]) -> T:
        with self._lock:
            lock = self._locks.setdefault(factory, threading.Lock())
        with lock:  # one start per resource; others are not held up meanwhile
            if factory in self._values:
                return self._values[factory]  # type: ignore[no-any-return]
            generator = factory()
            value = next(generator)
            with self._lock:
                self._open.append(generator)
                self._values[factory] = value
            return value

    def warm(self, factory: Resource) -> None:
        """Start the resource in the background; a Trial that needs it waits for it there."""

        def start() -> None:
            with contextlib.suppress(Exception):  # the Trial that needs it meets the same error
                self.get(factory)

        thread = threading.Thread(target=start, name="eval-warm", daemon=True)
        self._warming.append(thread)
        thread.start()

    def close(self) -> None:
        for thread in self._warming:
            thread.join()
        with self._lock:
            while self._open:
                _close(self._open.pop())
            self._values.clear()


class FixtureRequest:
    """What a fixture may use: the Case, its field's value, Host services, shared resources,
    and (after the ``yield``) the Trial's Evidence."""

    __slots__ = ("_evidence", "_scope", "_shared", "case", "host", "trial", "value")

    def __init__(
        self,
        case: CaseBase,
        value: Any,
        trial: int,
        scope: HostTrial,
        host: str,
        shared: SweepResources,
    ) -> None:
        self.case = case
        self.value = value
        self.trial = trial
        self.host = host
        self._scope = scope
        self._shared = shared
        self._evidence: Evidence | None = None

    def service(self, kind: Callable[..., T]) -> T:
        """The Host's service for this Trial that satisfies ``kind``, a Protocol class."""
        try:
            found: T = find(self._scope.services(), kind, self.host)  # type: ignore[arg-type]
        except ServiceError as exc:
            raise FixtureError(str(exc)) from None
        return found

    def shared(self, factory: Callable[[], Iterator[T]]) -> T:
        """The value ``factory`` yields, started once per Sweep and closed when it ends."""
        return self._shared.get(factory)

    @property
    def evidence(self) -> Evidence:
        """The Trial's Evidence; only after the ``yield``, once the Host has run the Case."""
        if self._evidence is None:
            raise FixtureError("Evidence exists only after the fixture's yield")
        return self._evidence

    def record(self, record: object) -> None:
        """Put a typed record into the Trial's Evidence (found again by its type)."""
        self.evidence.put(record)

    def received(self, call: ToolCall) -> None:
        """A call as a Tool this fixture stands behind received it (an external provider's own
        log): the Tool witness, beside the calls the Host saw at its executor port."""
        evidence = self.evidence
        evidence.tool_calls = [*(evidence.tool_calls or ()), call]


def run_with_fixtures(
    case: CaseBase,
    trial: int,
    scope: HostTrial,
    host: str,
    fixtures: Sequence[OwnedFixture],
    shared: SweepResources,
    observed: Callable[[Evidence], None] | None = None,
) -> Evidence:
    """Set up every fixture that applies, let the Host run the Case, read back in reverse.

    ``observed`` completes the Evidence with what the core itself saw (the binding's record)
    before any fixture reads back."""
    started: list[tuple[OwnedFixture, Iterator[None], FixtureRequest]] = []
    try:
        for registered in fixtures:
            fixture = registered.fixture
            value = _applying(registered, case)
            if value is _NOT:
                continue
            request = FixtureRequest(case, value, trial, scope, host, shared)
            generator = fixture.run(request)
            if not _step(registered, generator, "setting up"):
                raise FixtureError(f"{registered.label} never yielded")
            started.append((registered, generator, request))
        evidence = scope.run()
        if observed is not None:
            observed(evidence)
        while started:
            registered, generator, request = started.pop()
            request._evidence = evidence
            if _step(registered, generator, "reading back"):
                _close(generator)
                raise FixtureError(f"{registered.label} yielded more than once")
        return evidence
    except BaseException:
        while started:  # the Host or a fixture failed: every cleanup still runs
            registered, generator, _ = started.pop()
            try:
                _close(generator)
            except Exception as exc:  # the first failure is the Trial's reason; this one is shown
                fault(registered.origin, f"fixture {registered.fixture.name!r} (cleaning up)", exc)
        raise


_NOT = object()


def _applying(registered: OwnedFixture, case: CaseBase) -> Any:
    """The fixture's ``request.value`` when it applies to ``case`` (its field's value, or
    ``None`` for a predicate's), else ``_NOT``: one call per fixture and Trial, a field read
    in place (what ``CaseBase.field`` reads)."""
    field = registered.fixture.field
    if field is not None:
        value = getattr(case, field, None)
        return _NOT if value is None else value
    try:
        return None if registered.applies_to(case) else _NOT
    except PluginFault as exc:
        raise FixtureError(str(exc)) from exc


def _step(registered: OwnedFixture, generator: Iterator[None], phase: str) -> bool:
    """Run a fixture to its next ``yield``: whether it yielded (false: it returned)."""
    try:
        next(generator)
    except StopIteration:
        return False
    except FixtureError as exc:
        raise FixtureError(f"{registered.label}: {exc}") from None
    except Exception as exc:
        what = f"fixture {registered.fixture.name!r} ({phase})"
        problem = fault(registered.origin, what, exc, registered.fixture.run)
        raise FixtureError(str(problem)) from exc
    return True


def _close(generator: Iterator[Any]) -> None:
    """End a generator at its ``yield``: its ``finally`` (the cleanup) runs."""
    close = getattr(generator, "close", None)
    if close is not None:
        close()
