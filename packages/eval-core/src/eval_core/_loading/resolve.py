"""Resolution: what a Case names against what the Host says is there.

A Case names its tier (one the Host offers), its agent (one the Host has: the Eval Soul's, or
a team's own), shipped platform Tools (resolved to the declarations the Host ships), Tools (each
one its agent is offered: :mod:`eval_core._loading.tool_names`) and ``context`` keys (the
Host's assembler says which a Case may set, and what value each takes). The Host is asked once
per loader, not once per Case, except for the Tools a Case's agent is offered, which a Case may
add to.

Two leniencies follow the original, each said once as a load note rather than refused: a
hand-declared Tool that shares a platform Tool's name (the model sees the Case's copy; a Host
that runs the real Tool routes the call to it by name), and a retired ``context`` key whose
value is empty (nothing to render, so nothing is lost).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import msgspec

from eval_core._case.case import CaseBase, CaseField, ToolDecl
from eval_core._case.kinds import ALL_TIERS, KindSpec, Tier
from eval_core._loading import rules, tool_names
from eval_core._loading.problem import Problem
from eval_core._loading.tool_names import did_you_mean, listing
from eval_core._plugins import host_answers as answers
from eval_core._plugins.host import ContextRules, Host

T = TypeVar("T")

SOUL_AGENTS = "the Eval Soul"
"""Where a Host's agents come from when it does not say (``Host.agents_from``)."""


class Resolver(msgspec.Struct, frozen=True):
    """The Host's answers at load: its platform Tools, its agents (and where they come from),
    the context rules, its tiers; the installed kinds and Case fields, for the Tool names they
    hold."""

    platform: Mapping[str, ToolDecl]
    agents: frozenset[str]
    context: ContextRules
    host: Any = None
    agents_from: str = SOUL_AGENTS
    kinds: Mapping[str, KindSpec] = msgspec.field(default_factory=dict)
    fields: Mapping[str, CaseField] = msgspec.field(default_factory=dict)
    tiers: frozenset[Tier] = ALL_TIERS
    fixtures: tool_names.Fixtures | None = None
    """The installed fixtures, asked for when the Host's further Tools come through a service
    (:attr:`~eval_core._plugins.host.AgentTools.through`)."""
    parks: bool = False
    """Whether the Host parks a call whose provider is scripted to wait (``Host.parks_calls``)."""

    @classmethod
    def of(
        cls,
        host: Host,
        kinds: Mapping[str, KindSpec] | None = None,
        fields: Mapping[str, CaseField] | None = None,
        fixtures: tool_names.Fixtures | None = None,
    ) -> Resolver:
        where = getattr(host, "agents_from", None)
        return cls(
            answers.platform_tools(host),
            answers.agents(host),
            answers.context_rules(host),
            host,
            where if isinstance(where, str) and where else SOUL_AGENTS,
            kinds or {},
            fields or {},
            answers.tiers(host),
            fixtures,
            answers.parks_calls(host),
        )

    def declarations(self, cases: Sequence[CaseBase]) -> list[ToolDecl]:
        """The platform Tools the Cases name, by name: part of the corpusHash."""
        return [self.platform[n] for n in sorted({n for c in cases for n in c.platform_tools})]

    def tier(self, file: str, case: CaseBase) -> Iterator[Problem]:
        if case.tier not in self.tiers:
            offered = "/".join(sorted(self.tiers))
            name = getattr(self.host, "name", "?")
            yield Problem(
                file, "$.tier", f"Host {name!r} offers {offered} only; this Case is {case.tier}"
            )

    def waits(self, file: str, case: CaseBase) -> Iterator[Problem]:
        """A provider scripted to wait (``approvalId``, ``retryWaitId``) needs a Host that parks
        the call; on one that parks none the Case would measure the Host's lack, not the agent."""
        if self.host is None or self.parks:
            return
        for index, result in enumerate(case.tool_results):
            for field, value in (("approvalId", result.approval_id),
                                 ("retryWaitId", result.retry_wait_id)):  # fmt: skip
                if value is not None:
                    yield Problem(
                        file,
                        f"$.toolResults[{index}].{field}",
                        f"Host {getattr(self.host, 'name', '?')!r} parks no Tool call: {field} "
                        "needs a runtime that waits for an approval or a retry",
                    )

    def agent(self, file: str, case: CaseBase) -> Iterator[Problem]:
        if case.agent not in self.agents:
            yield Problem(
                file,
                "$.agent",
                f"unknown agent {case.agent!r}: not in {self.agents_from}, which has: "
                f"{listing(self.agents)}{did_you_mean(case.agent, self.agents)}",
            )

    def tool_names(self, file: str, case: CaseBase) -> Iterator[Problem]:
        """Every Tool name of the Case is one its agent is offered (``agent`` first: a Case
        of an unknown agent is not asked about its Tools)."""
        if self.host is not None and case.agent in self.agents:
            yield from self._named(tool_names.problems, file, case)

    def _named(self, check: Callable[..., Iterator[T]], file: str, case: CaseBase) -> Iterator[T]:
        """``check`` (the Tool-name problems or notes) of the Case, against this load's Host,
        kinds, fields, platform Tools and fixtures."""
        return check(
            file,
            self.host,
            case,
            self.kinds,
            self.fields,
            platform=self.platform,
            fixtures=self.fixtures,
        )

    def context_keys(self, file: str, case: CaseBase) -> Iterator[Problem]:
        rules = self.context
        for key in sorted(case.context or {}):
            path = f"$.context.{key}"
            if key in rules.soul_owned:
                yield Problem(
                    file, path, f"{key!r} is owned by the Eval Soul; a Case may not restate it"
                )
            elif key in rules.retired and not _empty((case.context or {})[key]):
                yield Problem(file, path, f"{key!r} is retired: {rules.retired[key]}")
            elif key in rules.retired:
                continue  # empty: a no-op, said by notes()
            elif key not in rules.allowed:
                allowed = ", ".join(sorted(rules.allowed)) or "none"
                yield Problem(file, path, f"unknown context key {key!r}; allowed: {allowed}")
            elif key in rules.types:
                yield from _value(file, path, (case.context or {})[key], rules.types[key])

    def tools(self, file: str, case: CaseBase) -> Iterator[Problem]:
        """Declared Tools, platform Tools and scripted Tool results agree with each other."""
        declared: set[str] = set()
        for index, tool in enumerate(case.tools):
            if not tool.name:
                yield Problem(file, f"$.tools[{index}].name", "must be a non-empty string")
            elif tool.name in declared:
                yield Problem(file, f"$.tools[{index}].name", f"Tool {tool.name!r} declared twice")
            declared.add(tool.name)
        for index, name in enumerate(case.platform_tools):
            path = f"$.platformTools[{index}]"
            if name not in self.platform:
                yield Problem(
                    file,
                    path,
                    f"{name!r} does not resolve to a shipped platform Tool"
                    + did_you_mean(name, self.platform),
                )
            elif name in declared:
                yield Problem(file, path, f"{name!r} is listed twice")
            declared.add(name)
        for index, result in enumerate(case.tool_results):
            path = f"$.toolResults[{index}]"
            if result.name not in declared:
                yield Problem(
                    file,
                    f"{path}.name",
                    f"scripted result for {result.name!r}, which the Case does not declare "
                    f"(tools, platformTools){did_you_mean(result.name, declared)}",
                )
            outcomes = [x for x in result.outcomes() if x is not None]
            if len(outcomes) > 1:
                yield Problem(
                    file,
                    path,
                    "at most one of denied, error, invalidArguments, approvalId, retryWaitId",
                )
            if any(not x for x in outcomes):
                yield Problem(
                    file,
                    path,
                    "a denial, error or invalidArguments reason, an approvalId or a retryWaitId "
                    "must be non-empty",
                )

    def notes(self, file: str, case: CaseBase) -> Iterator[str]:
        """What a Case loads with but means differently here, one line each."""
        for index, tool in enumerate(case.tools):
            if tool.name in self.platform:
                yield (
                    f"{file}: $.tools[{index}].name: {tool.name!r} shares a shipped platform "
                    "Tool's name: the model sees this hand-written copy, and a Host that runs "
                    "the real Tool (L3) routes the call to it by name"
                )
        for key in sorted(case.context or {}):
            if key in self.context.retired and _empty((case.context or {})[key]):
                yield (
                    f"{file}: $.context.{key}: retired and empty, so a no-op here: "
                    f"{self.context.retired[key]}"
                )
        if self.host is not None:
            yield from self._named(tool_names.notes, file, case)


def _value(file: str, path: str, value: Any, kind: Any) -> Iterator[Problem]:
    """A value of an allowed ``context`` key, against the type the Host declares for it."""
    try:
        msgspec.convert(value, kind, strict=True)
    except msgspec.ValidationError as exc:
        reason, _, at = str(exc).partition(" - at `$")
        if not at and (choices := _choices(kind)):
            reason += f" (one of: {choices})"
        yield Problem(file, path + at.rstrip("`"), reason)


def _choices(kind: Any) -> str:
    """The values a ``Literal`` type (or a union holding one) allows, for a refusal."""
    info = msgspec.inspect.type_info(kind)
    found = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    literals = [t for t in found if isinstance(t, msgspec.inspect.LiteralType)]
    return ", ".join(repr(v) for t in literals for v in t.values)


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and not value)


def load_notes(
    resolver: Resolver,
    fields: Mapping[str, CaseField],
    prefix: str,
    cases: Sequence[CaseBase],
    files: Mapping[str, str],
) -> tuple[str, ...]:
    """Each Case's load notes (a variant's are its source Case's, said once)."""
    seen: dict[str, None] = {}
    for case in cases:
        file = prefix + files.get(case.id, case.id)
        for note in resolver.notes(file, case):
            seen.setdefault(note)
        for note in rules.script_notes(file, case, fields):
            seen.setdefault(note)
    return tuple(seen)
