"""The plug-in contract: every hook a plug-in may implement.

A plug-in is a module (or object) named by an entry point in the group ``eval.plugins``::

    [project.entry-points."eval.plugins"]
    files = "eval_expectations_files.plugin"

It implements any of the hooks below with :data:`hookimpl`. The core's own built-in families
(prompt, output, tool calls, guardrails, status) and its model bindings (``eval-bindings``)
are registered exactly this way, from their own packages' ``pyproject.toml``. Every hook is
called once per process, when the plug-in set is loaded, except :func:`eval_check_case`,
called once per Case at load, and the Sweep's own (:func:`eval_sweep_leg`,
:func:`eval_sweep_files`), called by ``eval sweep`` as it finishes.

Every hook, and every callable a hook returns (scorers, checks, seams, guard gates, fixtures,
text functions), is called through :mod:`eval_core._util.guard`: an exception is never a crash or a
verdict but a refusal at load or an errored Trial at run, naming the plug-in's distribution,
version and the file:line that raised. A hookimpl no hookspec here declares is refused.

An executor (where a Sweep's Trials run, such as a Ray cluster) is named by an entry point in
the group ``eval.executors`` and implements :func:`eval_executors`; it is loaded only by
``eval sweep --executor NAME``, never with the families, and is not in ``eval.lock``.

A command plug-in (a sub-command of ``eval``, such as ``eval report``) is named by an entry
point in the group ``eval.commands`` instead and implements :func:`eval_commands`; it is loaded
by the command line alone, never with the families.

Evidence is read back from the system under test (its database, its wire traffic, its event
stream, its provider's own counters); nothing in it may be copied from the Case or made by a
harness wrapper standing in for runtime behaviour. A scorer over nothing observed fails with a
reason; it never passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import pluggy

if TYPE_CHECKING:
    from pathlib import Path

    from eval_core._case.case import Case, CaseField
    from eval_core._case.kinds import KindSpec
    from eval_core._case.sections import Section
    from eval_core._case.witness import WitnessCheck
    from eval_core._loading.corpus import Corpus
    from eval_core._plugins.commands import Commands
    from eval_core._plugins.executor import ExecutorFactory
    from eval_core._plugins.fixtures import TrialFixture
    from eval_core._plugins.host import HostFactory, LoadContext
    from eval_core._plugins.model_source import ModelSource
    from eval_core._running.scorecard import Scorecard
    from eval_core._sweeping.leg import Run
    from eval_core._sweeping.options import SweepOptions

F = TypeVar("F", bound=Callable[..., Any])
PROJECT = "eval"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

OWN_CASES = "eval_own_cases"
OWN_SUITES = "eval_own_suites"


@overload
def own_cases(function: F) -> F: ...


@overload
def own_cases(*, suites: Sequence[str] = ()) -> Callable[[F], F]: ...


def own_cases(function: F | None = None, *, suites: Sequence[str] = ()) -> Any:
    """Mark a per-Case hook (``eval_check_case``, ``eval_variants``, ``eval_probabilistic``,
    ``eval_scorecard_sections``) or a fixture's ``applies=`` predicate whose rules concern only
    Cases that set one of this plug-in's Case fields or use one of its kinds: it is not called
    for the others (on a large Corpus most plug-ins own few Cases), and a Corpus none of whose
    Cases use the plug-in never imports it. ``suites`` names the suites in which it still sees
    every Case (``@own_cases(suites=("red-team",))``). Unmarked, a hook sees every Case."""

    def mark(marked: F) -> F:
        setattr(marked, OWN_CASES, True)
        setattr(marked, OWN_SUITES, frozenset(suites))
        return marked

    return mark if function is None else mark(function)


def owned_by(function: object) -> frozenset[str] | None:
    """The suites in which a hook marked :func:`own_cases` sees every Case (``None``:
    unmarked, it sees every Case everywhere)."""
    if not getattr(function, OWN_CASES, False):
        return None
    return frozenset(getattr(function, OWN_SUITES, ()))


@hookspec
def eval_kinds() -> Sequence[KindSpec]:
    """The Expectation kinds this plug-in ships: its family.

    Called once at load. Each kind name must be unique across the installed plug-ins; a
    second plug-in claiming a kind is refused, naming both distributions.
    """
    raise NotImplementedError


@hookspec
def eval_case_fields() -> Sequence[CaseField]:
    """Case fields (fixture blocks) this plug-in adds, such as ``mcp`` or ``journey``.

    Called once at load. A field name must be unique across plug-ins and must not shadow a
    generic Case field.
    """
    raise NotImplementedError


@hookspec
def eval_check_case(case: Case, context: LoadContext) -> Iterable[tuple[str, str]]:
    """Cross-field rules for one decoded Case, run at load.

    Return ``(json_path, reason)`` pairs, the path absolute (``$.attachments[0].name``). Every
    problem is reported; the loader never stops at the first. Must not raise: a raising check
    is reported as a problem naming the plug-in. A check that only concerns the Cases using
    this plug-in's own fields or kinds says so with :func:`own_cases` (under ``@hookimpl``),
    and is then not called for the others.
    """
    raise NotImplementedError


@hookspec
def eval_hosts() -> Mapping[str, HostFactory]:
    """Hosts (systems under test) this plug-in provides, by name.

    The reference runtime registers ``agent-runtime``; another team's runtime registers its own
    and is chosen with ``--host``. A factory is called with the Eval Soul's directory and each
    ``--host-option KEY=VALUE`` as a keyword argument (see
    :data:`eval_core._plugins.host.HostFactory`).
    """
    raise NotImplementedError


@hookspec
def eval_fixtures() -> Sequence[TrialFixture]:
    """Setup before a Trial and read-back after it, for the Case fields this plug-in adds.

    Called once at load. Each :class:`~eval_core._plugins.fixtures.TrialFixture` names the Case
    field it
    serves (or a predicate) and the Host services it needs; a Case it applies to is refused at
    load when the chosen Host lacks one of them, naming the Host, the field and the service.
    Around each Trial the core runs every fixture that applies, in a defined order, like a
    pytest yield fixture: setup, the Host's run, read-back into a typed record, cleanup.
    """
    raise NotImplementedError


@hookspec
def eval_witness_checks() -> Sequence[WitnessCheck]:
    """Checks of the runtime's own record against this plug-in's witnesses, run on every Trial.

    Called once at load. Each :class:`~eval_core._case.witness.WitnessCheck` reads one Trial's
    Evidence (typically this family's read-back record beside the runtime's events) and returns
    a line per contradiction, naming both sides: an attachment the runtime announced that the
    next request did not carry, a write it says was refused that reached the database. Any
    line fails the Trial, whatever its Expectations say. The core's own checks (the binding's
    requests, the Tool boundary) always run; see :mod:`eval_core._case.witness`.
    """
    raise NotImplementedError


@hookspec
def eval_variants(case: Case) -> Iterable[Mapping[str, Any]]:
    """Cases derived from one loaded Case (an attack restated by a strategy), as documents.

    Called once per Case at load. Each document is a Case in its JSON form (camelCase keys)
    with its own ``id``, which must start with ``<the Case's id>--``; the loader decodes and
    checks it like a Case file (its problems name the source file) and hashes it with the
    Corpus. Must be deterministic: the same Case always yields the same variants.
    """
    raise NotImplementedError


@hookspec
def eval_probabilistic(case: Case) -> bool:
    """True when the Case measures a rate (a model's resistance), not a gate.

    Its Trials are reported by the plug-in's section, never counted as passed or failed,
    never compared with a Baseline, and never fail the Sweep by themselves.
    """
    raise NotImplementedError


@hookspec
def eval_scorecard_sections(card: Scorecard, cases: Sequence[Case]) -> Iterable[Section]:
    """This plug-in's summary of a finished Sweep (a :class:`~eval_core._case.sections.Section`)."""
    raise NotImplementedError


@hookspec
def eval_matrix_sections(cards: Sequence[Scorecard]) -> Iterable[Section]:
    """This plug-in's summary across the legs of a Matrix (one Scorecard per model)."""
    raise NotImplementedError


@hookspec
def eval_sweep_leg(
    options: SweepOptions, leg: Run, commit: str, scrub: Callable[[bytes], bytes]
) -> None:
    """Judge one measured leg of ``eval sweep`` (a release gate: eval-release compares it with
    its Baseline and promotes it).

    Called once per leg that ran and measured something, after its Trials and before anything
    prints, with the Sweep's flags, the leg (:class:`~eval_core._sweeping.leg.Run`: its name,
    its Scorecard ``leg.card``), the Corpus's commit and ``scrub`` (every byte a gate writes
    goes through it: the Sweep's secrets never reach a file). The hook changes the verdict only
    through the leg: a line in ``leg.notes`` prints under the Scorecard, a reason in
    ``leg.reasons`` makes it NOT CLEARED (exit 1), ``leg.refused = True`` is exit 3 (a
    comparison refused), a line in ``leg.write_failures`` is exit 2; ``leg.states`` (Case id to
    a word, ``regressed``...) is handed to :func:`eval_sweep_files`. A hook that raises adds a
    reason naming the plug-in: the Sweep is not cleared.
    """
    raise NotImplementedError


@hookspec
def eval_sweep_files(
    options: SweepOptions, corpus: Corpus, legs: Sequence[Run], trials: Sequence[Any]
) -> Iterable[tuple[str, Path, Callable[[], bytes]]]:
    """Files this plug-in writes after the Sweep's Scorecard is on stdout (eval-release: JUnit).

    Each is ``(flag, path, render)``: ``render()`` makes the bytes, written atomically through
    the Sweep's redactor; a failed write is one line naming the flag (exit 2), never a lost
    Sweep. The Sweep checked its own flags' paths before the first Trial; a plug-in's own
    paths are its to check.
    """
    raise NotImplementedError


@hookspec
def eval_models() -> ModelSource:
    """The model source: how ``eval sweep --model NAME`` reaches a real model, and the Judge.

    Called once at load. The returned :class:`~eval_core._plugins.model_source.ModelSource` opens
    one
    leg per model named (its pin, the preflight of its credential, its binding, its ceiling,
    its priced spend) and makes the Judge for a Sweep. At most one plug-in may provide it; a
    second is refused, naming both. Without one, ``--model`` is refused and the scripted
    binding runs as before.
    """
    raise NotImplementedError


@hookspec
def eval_commands(commands: Commands) -> None:
    """Add sub-commands to the ``eval`` command line: ``commands.add(name, help=..., run=...)``.

    Called once per ``eval`` invocation, before its arguments are parsed, for each entry point
    of the group ``eval.commands``. :meth:`~eval_core._plugins.commands.Commands.add` returns the
    sub-command's :class:`~eval_core._plugins.commands.Arguments`, for the plug-in to declare
    its arguments as argparse spells them (typer parses them, in the eval-cli package);
    ``run(args)`` gets the parsed namespace and returns the exit code. Keep
    the module light (``eval --help`` loads it): import the command's work inside ``run``. A
    command that refuses input raises :class:`~eval_core._plugins.commands.CommandRefused` (one line
    on
    stderr, exit 2 unless it says otherwise), like the core's own. A name that exists already
    (the core's or another plug-in's) is refused, naming both distributions.
    """
    raise NotImplementedError


@hookspec
def eval_executors() -> Mapping[str, ExecutorFactory]:
    """Executors this plug-in provides, by name: where ``eval sweep --executor NAME`` runs Trials.

    Called only when ``--executor`` is given, for each entry point of the group
    ``eval.executors`` (never with the families: an executor is not part of the pinned plug-in
    set). A factory is called with ``--address`` (or ``None``) and must not connect yet; see
    :class:`~eval_core._plugins.executor.Executor` for what it returns and what it must check.
    """
    raise NotImplementedError
