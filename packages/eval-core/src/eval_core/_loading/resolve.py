"""Resolution: what a Case names against what the Host says is there.

A Case names its agent (one of the Eval Soul's), shipped platform Tools (resolved to the
declarations the Host ships, never hand-declared copies) and ``context`` keys (the Host's
assembler says which a Case may set). The Host is asked once per loader, not once per Case.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from eval_core._case.case import CaseBase, ToolDecl
from eval_core._loading.problem import Problem
from eval_core._plugins.host import ContextRules, Host


@dataclass(frozen=True, slots=True)
class Resolver:
    """The Host's answers at load: its platform Tools, the Soul's agents, the context rules."""

    platform: Mapping[str, ToolDecl]
    agents: frozenset[str]
    context: ContextRules

    @classmethod
    def of(cls, host: Host) -> Resolver:
        return cls(host.platform_tools(), host.agents(), host.context_rules())

    def declarations(self, cases: Sequence[CaseBase]) -> list[ToolDecl]:
        """The platform Tools the Cases name, by name: part of the corpusHash."""
        return [self.platform[n] for n in sorted({n for c in cases for n in c.platform_tools})]

    def agent(self, file: str, case: CaseBase) -> Iterator[Problem]:
        if case.agent not in self.agents:
            yield Problem(
                file,
                "$.agent",
                f"unknown agent {case.agent!r}; the Eval Soul has: "
                + ", ".join(sorted(self.agents)),
            )

    def context_keys(self, file: str, case: CaseBase) -> Iterator[Problem]:
        rules = self.context
        for key in sorted(case.context or {}):
            path = f"$.context.{key}"
            if key in rules.soul_owned:
                yield Problem(
                    file, path, f"{key!r} is owned by the Eval Soul; a Case may not restate it"
                )
            elif key in rules.retired:
                yield Problem(file, path, f"{key!r} is retired: {rules.retired[key]}")
            elif key not in rules.allowed:
                allowed = ", ".join(sorted(rules.allowed)) or "none"
                yield Problem(file, path, f"unknown context key {key!r}; allowed: {allowed}")

    def tools(self, file: str, case: CaseBase) -> Iterator[Problem]:
        """Declared Tools, platform Tools and scripted Tool results agree with each other."""
        declared: set[str] = set()
        for index, tool in enumerate(case.tools):
            if not tool.name:
                yield Problem(file, f"$.tools[{index}].name", "must be a non-empty string")
            elif tool.name in declared:
                yield Problem(file, f"$.tools[{index}].name", f"Tool {tool.name!r} declared twice")
            elif tool.name in self.platform:
                yield Problem(
                    file,
                    f"$.tools[{index}].name",
                    f"{tool.name!r} is a shipped platform Tool: name it in platformTools "
                    "instead of hand-declaring a copy",
                )
            declared.add(tool.name)
        for index, name in enumerate(case.platform_tools):
            path = f"$.platformTools[{index}]"
            if name not in self.platform:
                yield Problem(file, path, f"{name!r} does not resolve to a shipped platform Tool")
            elif name in declared:
                yield Problem(file, path, f"{name!r} is listed twice")
            declared.add(name)
        for index, result in enumerate(case.tool_results):
            path = f"$.toolResults[{index}]"
            if result.name not in declared:
                yield Problem(
                    file,
                    f"{path}.name",
                    f"scripted result for {result.name!r}, which the Case does not declare",
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
