"""The plug-in checks of one Case: what the installed families say about it.

Tier gates of plug-in Case fields and kinds, each kind's own check, the grounding rule
(:mod:`eval_core._loading.grounding`) for kinds that declare one, every plug-in's cross-field
``eval_check_case``, the ``eval_probabilistic`` hook (asked now, so one that raises is refused
at load), and the Host services each fixture that applies needs. A plug-in that raises is a
problem naming it, never a crash that hides the Corpus's other problems.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from eval_core._case.case import CaseBase, ToolDecl, json_name
from eval_core._case.kinds import KindSpec
from eval_core._loading.grounding import GivenText, given_text, grounded_text, ungrounded
from eval_core._loading.problem import Problem
from eval_core._plugins import host_answers as answers
from eval_core._plugins.host import Host, LoadContext
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.services import satisfies
from eval_core._util.guard import PluginFault, collect


class PluginChecks:
    """The plug-in checks against one plug-in set and Host; which Host services are offered
    at a tier is asked once."""

    def __init__(self, plugins: PluginSet, host: Host, platform: Mapping[str, ToolDecl]) -> None:
        self.plugins = plugins
        self.host = host
        self._platform = platform
        self._needing = [r for r in plugins.fixtures if r.fixture.needs]
        self._predicates = [r for r in plugins.fixtures if r.fixture.applies is not None]
        self._offered: dict[tuple[type, str], bool] = {}

    def case(
        self, file: str, case: CaseBase, present: frozenset[str], suite: str
    ) -> Iterator[Problem]:
        """Every plug-in problem of one Case; ``present``: its plug-in fields that are set."""
        uses = present.union(e.kind_name for e in case.expect)
        yield from self._fields(file, case, present)
        yield from self._expectations(file, case)
        context = LoadContext(
            host=self.host,
            kinds=self.plugins.kinds,
            file=file,
            suite=suite,
            fields=self.plugins.fields,
        )
        for path, reason in self.plugins.check_case(case, context, uses):
            yield Problem(file, path, reason)
        try:
            self.plugins.probabilistic(case)  # asked at run: a hook that raises is refused now
        except PluginFault as exc:
            yield Problem(file, "$", str(exc))
        yield from self._services(file, case, present)

    def _fields(self, file: str, case: CaseBase, present: frozenset[str]) -> Iterator[Problem]:
        for name, spec in self.plugins.fields.items():
            if name in present and case.tier not in spec.tiers:
                tiers = "/".join(sorted(spec.tiers))
                yield Problem(
                    file,
                    f"$.{json_name(name)}",
                    f"{json_name(name)!r} is {tiers}-only; this Case is {case.tier}",
                )

    def _expectations(self, file: str, case: CaseBase) -> Iterator[Problem]:
        yield from expectation_problems(
            file,
            case,
            self.plugins.kinds,
            lambda: given_text(
                case,
                lambda: answers.given_text(self.host, case),
                self._platform,
                self.plugins.fields.values(),
            ),
        )

    def _services(self, file: str, case: CaseBase, present: frozenset[str]) -> Iterator[Problem]:
        """Every fixture that applies to the Case finds the Host services it needs; every
        ``applies=`` predicate is asked now, so one that raises is refused at load."""
        applies: dict[int, bool] = {}
        for registered in self._predicates:
            try:
                applies[id(registered)] = registered.applies_to(case)
            except PluginFault as exc:
                applies[id(registered)] = False
                yield Problem(file, "$", str(exc))
        for registered in self._needing:
            fixture = registered.fixture
            if fixture.field is not None:
                if fixture.field not in present:
                    continue
            elif not applies[id(registered)]:
                continue
            field = fixture.field
            if field is not None and case.tier not in self.plugins.fields[field].tiers:
                continue  # the field itself is refused at this tier
            for need in fixture.needs:
                key = (need, case.tier)
                offered = self._offered.get(key)
                if offered is None:
                    try:
                        classes = answers.services(self.host, case.tier)
                    except PluginFault as exc:
                        yield Problem(file, "$", str(exc))
                        return
                    offered = self._offered[key] = any(satisfies(c, need) for c in classes)
                if not offered:
                    yield Problem(
                        file,
                        f"$.{json_name(field)}" if field is not None else "$",
                        f"{registered.label} needs the Host service {need.__name__}, which "
                        f"Host {self.host.name!r} does not offer at {case.tier}",
                    )


def expectation_problems(
    file: str, case: CaseBase, kinds: Mapping[str, KindSpec], given: Callable[[], GivenText]
) -> Iterator[Problem]:
    """Each Expectation's own problems: its kind's tier, its kind's check, its grounding rule.

    ``given`` builds what the Case gave the model, asked only for a grounded Expectation. The
    loader asks it of every Case; the kind reference (``eval_cli.examples``, through
    :mod:`eval_core._loading.document`) of each kind's documented example.
    """
    found_given: GivenText | None = None
    for index, expectation in enumerate(case.expect):
        spec = kinds[expectation.kind_name]
        path = f"$.expect[{index}]"
        if case.tier not in spec.tiers:
            tiers = "/".join(sorted(spec.tiers))
            yield Problem(
                file, f"{path}.kind", f"{spec.name!r} is {tiers}-only; this Case is {case.tier}"
            )
        if spec.check is not None:
            try:
                found = collect(spec.origin, f"the check of kind {spec.name!r}", spec.check,
                                expectation, case)  # fmt: skip
            except PluginFault as exc:
                found = [("", str(exc))]
            for suffix, reason in found:
                yield Problem(file, path + str(suffix), str(reason))
        text = grounded_text(spec, expectation)
        if text is None:
            continue
        if found_given is None:
            found_given = given()
            try:
                found_given.plugin_text()  # now, so a raising text function is always refused
            except PluginFault as exc:
                yield Problem(file, "$", str(exc))
                return
        try:  # the Host's given text is asked only when the Case's own text lacks the needle
            missing = ungrounded(found_given, spec, text)
        except PluginFault as exc:
            yield Problem(file, "$", str(exc))
            return
        if missing is not None:
            suffix, reason = missing
            yield Problem(file, path + suffix, reason)
