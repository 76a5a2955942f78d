"""Tool names checked against what the Host offers: no Expectation passes on a name that
cannot occur.

Every Tool name a Case holds is one the Host says a Trial of that Case offers its agent
(:meth:`~eval_core._plugins.host.Host.offered_tools`, plus the Tools a plug-in field adds:
:attr:`~eval_core._case.case.CaseField.offers_tools`): the names in its Expectations (the
fields each kind declares, :attr:`~eval_core._case.kinds.KindSpec.tool_fields`), its scripted
calls, its ``platformTools``, its ``toolResults`` and a plug-in field's
(:attr:`~eval_core._case.case.CaseField.tool_names`). An unknown name is refused with its JSON
path and the nearest Tool the agent has. The one way to name a Tool the agent lacks is a
scripted call marked ``unoffered`` (a hallucinated call, on purpose); an Expectation may then
name that Tool too. The core knows no kind and no field by name: each declares its own.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Literal

import msgspec

from eval_core._case.case import CaseBase, CaseField, ToolCallsStep, ToolDecl, json_name
from eval_core._case.kinds import KindSpec
from eval_core._loading.problem import Problem
from eval_core._plugins.fixtures import OwnedFixture
from eval_core._plugins.host import AgentTools, Host
from eval_core._plugins.services import satisfies
from eval_core._util.guard import PluginFault, call, collect

Role = Literal["named", "call", "unoffered"]
SHOWN = 12  # Tools listed in a refusal
Fixtures = Callable[[], Sequence[OwnedFixture]]
"""The installed fixtures, asked for only when a Host's further Tools come through a service."""


class Named(msgspec.Struct, frozen=True):
    """One Tool name in a Case: where, which, and as what (named, a call, an unoffered call)."""

    path: str
    name: str
    role: Role = "named"


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the nearest known name, or nothing (difflib's ratio)."""
    near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else ""


def listing(names: Iterable[str]) -> str:
    """The names, sorted, at most :data:`SHOWN` of them (``none`` when empty)."""
    ordered = sorted(names)
    if not ordered:
        return "none"
    more = f", … {len(ordered) - SHOWN} more" if len(ordered) > SHOWN else ""
    return ", ".join(ordered[:SHOWN]) + more


def named(
    case: CaseBase,
    kinds: Mapping[str, KindSpec],
    fields: Mapping[str, CaseField],
    platform: Collection[str] | None = None,
) -> Iterator[Named]:
    """Every Tool name the Case holds, in report order; a field's names through its guarded
    ``tool_names`` (a :class:`PluginFault` propagates to the caller). A ``platformTools`` name
    that is not in ``platform`` (the Host's shipped ones) is left out: resolve refuses it."""
    for index, expectation in enumerate(case.expect):
        spec = kinds.get(expectation.kind_name)
        if spec is not None:
            for suffix, name in spec.tool_names(expectation):
                yield Named(f"$.expect[{index}]{suffix}", name)
    for index, step in enumerate(case.script or ()):
        if isinstance(step, ToolCallsStep):
            for c_index, scripted in enumerate(step.calls):
                role: Role = "unoffered" if scripted.unoffered else "call"
                yield Named(f"$.script[{index}].calls[{c_index}].name", scripted.name, role)
    for index, name in enumerate(case.platform_tools):
        if platform is None or name in platform:
            yield Named(f"$.platformTools[{index}]", name)
    declared = {t.name for t in case.tools} | set(case.platform_tools)
    for index, result in enumerate(case.tool_results):
        if result.name in declared:  # an undeclared one is refused by resolve, said once
            yield Named(f"$.toolResults[{index}].name", result.name)
    for field, declared_by in fields.items():
        value = case.field(field)
        if value is None or declared_by.tool_names is None:
            continue
        what = f"tool_names of the Case field {json_name(field)!r}"
        for ref in collect(declared_by.origin, what, declared_by.tool_names, value):
            role = "unoffered" if ref.unoffered else "call" if ref.call else "named"
            yield Named(f"$.{json_name(field)}{ref.path}", ref.name, role)


def added(case: CaseBase, fields: Mapping[str, CaseField]) -> set[str]:
    """The Tools the Case's plug-in fields add to a Trial (guarded)."""
    found: set[str] = set()
    for field, spec in fields.items():
        value = case.field(field)
        if value is not None and spec.offers_tools is not None:
            what = f"offers_tools of the Case field {json_name(field)!r}"
            found.update(str(n) for n in collect(spec.origin, what, spec.offers_tools, value))
    return found


def offered(host: Host, case: CaseBase, fixtures: Fixtures | None = None) -> AgentTools | None:
    """The Host's answer for the Case (guarded: a Host that raises is a PluginFault); a Host
    without the method cannot say. Further Tools that come ``through`` a service of the Host
    are only for a Case a fixture of which asks for that service (``fixtures``)."""
    ask = getattr(host, "offered_tools", None)
    if ask is None:
        return None
    answer = call(None, f"offered_tools of Host {host.name!r}", ask, case)
    if answer is not None and not isinstance(answer, AgentTools):
        raise PluginFault(
            f"Host {host.name!r}: offered_tools returned {type(answer).__name__}, "
            "not AgentTools or None"
        )
    through = answer.through if answer is not None else None
    if answer is None or answer.more is None or through is None:
        return answer
    asked = fixtures is not None and any(
        any(satisfies(through, need) for need in owned.fixture.needs) and owned.applies_to(case)
        for owned in fixtures()
    )
    return answer if asked else msgspec.structs.replace(answer, more=None)


class Check(msgspec.Struct, frozen=True):
    """One Case's Tool names set against what its agent is offered."""

    names: list[Named]
    tools: AgentTools | None
    has: frozenset[str]

    @classmethod
    def of(
        cls,
        host: Host,
        case: CaseBase,
        kinds: Mapping[str, KindSpec],
        fields: Mapping[str, CaseField],
        *,
        platform: Mapping[str, ToolDecl],
        fixtures: Fixtures | None = None,
    ) -> Check:
        tools = offered(host, case, fixtures)
        names = list(named(case, kinds, fields, platform))
        has = frozenset(tools.names | added(case, fields)) if tools is not None else frozenset()
        return cls(names, tools, has)

    def problems(self, file: str) -> Iterator[Problem]:
        tools = self.tools
        if tools is None:
            return
        unoffered = {n.name for n in self.names if n.role == "unoffered"}
        for one in self.names:
            if one.role == "unoffered":
                if one.name in self.has:
                    yield Problem(
                        file,
                        one.path,
                        f"{one.name!r} is marked unoffered, but {tools.owner} has it: drop "
                        '"unoffered": true',
                    )
                continue
            if one.name in self.has or tools.more is not None:
                continue
            if (
                one.role == "named"
                and one.name in unoffered
                and not one.path.startswith("$.platformTools")
            ):
                continue  # the Tool of a hallucinated call, scripted on purpose
            yield Problem(file, one.path, self._unknown(one))

    def _unknown(self, one: Named) -> str:
        tools = self.tools
        assert tools is not None
        hint = did_you_mean(one.name, self.has)
        reason = f"{one.name!r} is not a Tool of {tools.owner}; it has: {listing(self.has)}{hint}"
        if one.role == "call":
            reason += (
                ' (a call the Case scripts to a Tool the agent lacks, on purpose, says "unoffered":'
                " true)"
            )
        return reason

    def notes(self, file: str) -> Iterator[str]:
        tools = self.tools
        if tools is None or tools.more is None:
            return
        unoffered = {n.name for n in self.names if n.role == "unoffered"}
        seen: set[str] = set()
        for one in self.names:
            if one.name in self.has or one.name in seen or one.name in unoffered:
                continue
            seen.add(one.name)
            yield (
                f"{file}: {one.path}: {one.name!r} is not among the Tools of {tools.owner} "
                f"listed at load ({listing(self.has)}); taken as one of {tools.more}, "
                "which the Host cannot list: not checked"
            )


def problems(
    file: str,
    host: Host,
    case: CaseBase,
    kinds: Mapping[str, KindSpec],
    fields: Mapping[str, CaseField],
    *,
    platform: Mapping[str, ToolDecl],
    fixtures: Fixtures | None = None,
) -> Iterator[Problem]:
    """Every Tool name of the Case the agent cannot be offered, refused with a did-you-mean."""
    try:
        check = Check.of(host, case, kinds, fields, platform=platform, fixtures=fixtures)
    except PluginFault as exc:
        yield Problem(file, "$", str(exc))
        return
    yield from check.problems(file)


def notes(
    file: str,
    host: Host,
    case: CaseBase,
    kinds: Mapping[str, KindSpec],
    fields: Mapping[str, CaseField],
    *,
    platform: Mapping[str, ToolDecl],
    fixtures: Fixtures | None = None,
) -> Iterator[str]:
    """What could not be checked at load, one line each: a Host that cannot list the agent's
    Tools, or a name taken as one of the Tools the agent gains only at run."""
    try:
        tools = offered(host, case, fixtures)
        if tools is not None and tools.more is None:
            return  # every name was checked at load: nothing to say (and nothing to compute)
        check = Check.of(host, case, kinds, fields, platform=platform, fixtures=fixtures)
    except PluginFault:
        return  # refused by problems(); a refused Corpus has no notes
    if check.tools is None:
        if check.names:  # the same line for every Case: said once
            yield (
                f"Host {host.name!r} cannot list the Tools its agents are offered: "
                "Tool names in Cases are not checked at load"
            )
        return
    yield from check.notes(file)
