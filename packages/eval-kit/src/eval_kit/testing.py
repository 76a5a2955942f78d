"""Testing support for plug-in authors: the Case runner and the checks :mod:`eval_kit` exports.

Test a family the way the harness will use it, without reaching into the core::

    from eval_kit import Kit, assert_kind_conforms, evidence

    def test_the_kind_conforms():
        assert_kind_conforms(my_spec, records=[Mailbox])   # hypothesis: total, data, stable

    def test_scoring():
        verdict = my_spec.scorer(MyKind(...), evidence(output_text="..."))

    def test_end_to_end(eval_kit: Kit):                    # the pytest fixture
        result = eval_kit.run(eval_kit.case({"kind": "my_kind", ...}))
        assert result.outcome == "passed", result.expectations

- :func:`evidence` builds Evidence by hand, with a family's typed records.
- :class:`Kit` (the ``eval_kit`` fixture, like pytest's ``pytester``) writes Case dicts into a
  temporary Corpus beside a minimal Eval Soul it provides, then checks them
  (:meth:`Kit.problems`: the loader's refusals, one string each) or runs them end to end on
  the scripted binding through the installed Host (:meth:`Kit.run`, :meth:`Kit.sweep`).
  It uses the installed plug-in set, plus any plug-in objects given to it (a module under
  test that is not installed yet), with the reference Host ``agent-runtime`` by default.
- :func:`assert_kind_conforms` runs the contract's properties (:mod:`eval_kit.conformance`)
  and, given a path, keeps a snapshot of the kind's schema.
- :func:`assert_host_conforms` runs the standard probe Cases through a Host
  (:mod:`eval_kit.host_conformance`): Evidence from witnesses, declared services offered,
  a raising agent errors its Trial in one line, nothing left open after ``close()``.

``pip install eval-kit`` brings ``hypothesis`` (:func:`assert_kind_conforms`) and pytest.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval_core.commands import build_plugins, discover_plugins, run_sweep
from eval_core.hosts import Corpus, CorpusError, Evidence, Loader, PluginSet, ScriptedBinding
from eval_core.kinds import KindSpec
from eval_core.records import Scorecard, TrialResult
from eval_kit.host_conformance import HostProbe, host_problems

if TYPE_CHECKING:
    import hypothesis
    from hypothesis.strategies import SearchStrategy

    from eval_core.hosts import Host, HostFactory

__all__ = [
    "Agent",
    "CaseRefused",
    "HostProbe",
    "Kit",
    "assert_host_conforms",
    "assert_kind_conforms",
    "evidence",
]


def evidence(tier: str = "l2", records: Iterable[object] = (), **observed: Any) -> Evidence:
    """Evidence as a Host would read it back: any :class:`~eval_core.kinds.Evidence` field
    by name (``output_text=``, ``tool_calls=``...), and a family's typed ``records``."""
    built = Evidence(tier=tier, **observed)
    for record in records:
        built.put(record)
    return built


def assert_kind_conforms(
    spec: KindSpec,
    *,
    examples: int = 100,
    fields: Mapping[str, SearchStrategy[Any]] | None = None,
    records: Sequence[type] = (),
    snapshot: Path | str | None = None,
    settings: hypothesis.settings | None = None,
) -> None:
    """Fail unless ``spec`` holds the plug-in contract, for arbitrary valid Expectations and
    arbitrary Evidence: the scorer never raises (but may raise ``NoVerdict``) and always
    says why; nothing observed never passes; ``check``, ``seam`` and ``guard_gate`` never
    raise and return what they promise; an Expectation survives a JSON round trip.

    ``fields`` overrides a field's strategy (Python name), to reach the passing branch;
    ``records`` are the typed records the scorer reads back (each drawn present or absent);
    ``snapshot`` is a JSON file holding the kind's schema (structure only, no prose): written
    when missing, then compared, so a schema change is a decision, never an accident.
    ``settings`` are hypothesis settings to start from (``phases=``, ``derandomize=``...).
    """
    from eval_kit.conformance import properties_hold, schema_problems

    problems = properties_hold(
        spec, examples=examples, fields=fields, records=records, hypothesis_settings=settings
    )
    problems += schema_problems(spec, Path(snapshot) if snapshot is not None else None)
    if problems:
        raise AssertionError("\n".join(problems))


def assert_host_conforms(
    probe: HostProbe, directory: Path | str, plugins: PluginSet | None = None
) -> None:
    """Fail unless the Host of ``probe`` holds the Host contract on the standard probe Cases,
    run on the scripted binding through the real loader (a pytest ``tmp_path`` is a good
    ``directory``); the message lists every problem, one line each. ``plugins`` default to the
    installed plug-in set (the probes use the core's tools, status and output kinds)."""
    found = build_plugins(discover_plugins()) if plugins is None else plugins
    problems = host_problems(probe, found, Path(directory))
    if problems:
        raise AssertionError("the Host does not conform:\n" + "\n".join(f"  {p}" for p in problems))


class CaseRefused(AssertionError):  # noqa: N818 - it names an outcome
    """The loader refused the Case; ``problems`` are its reasons, ``$.path: reason`` each."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("the Case is refused:\n" + "\n".join(f"  {p}" for p in problems))
        self.problems = list(problems)


@dataclass(frozen=True, slots=True)
class Agent:
    """An agent of the kit's Eval Soul, in the original's AGENT.md format. ``tools=None`` leaves
    it unrestricted (every Tool the Case declares); a list becomes its
    ``capabilityRestrictions.tools.allow``. ``autonomy`` is its ceiling (``full``,
    ``supervised``, ``approval-required`` or ``manual``)."""

    tools: Sequence[str] | None = None
    autonomy: str = "full"
    personality: str = "You are a careful assistant. Answer briefly and use Tools when asked."


@dataclass
class Kit:
    """Cases as dicts in, refusals or Trial results out, through the real loader and Host.

    ``directory`` holds one temporary Corpus per call. ``host`` names an installed Host, or
    ``host_factory`` builds one from a Soul directory. ``plugins`` are extra plug-in objects
    (modules, mostly) registered after the installed ones, as ``distribution`` 0.0.0: a family
    tested before it is installed. ``agents`` replace the Soul's single agent ``assistant``.
    """

    directory: Path
    host: str = "agent-runtime"
    host_factory: HostFactory | None = None
    plugins: Sequence[object] = ()
    distribution: str = "plugin-under-test"
    agents: Mapping[str, Agent] = field(default_factory=lambda: {"assistant": Agent()})
    _set: PluginSet | None = field(default=None, init=False, repr=False)
    _counter: Any = field(default_factory=lambda: count(1), init=False, repr=False)

    @property
    def plugin_set(self) -> PluginSet:
        """The installed plug-in set, with the kit's extra plug-ins."""
        if self._set is None:
            extra = [
                (f"kit{i}", self.distribution, "0.0.0", plugin)
                for i, plugin in enumerate(self.plugins)
            ]
            self._set = build_plugins([*discover_plugins(), *extra])
        return self._set

    def case(self, *expect: Mapping[str, Any], **overrides: Any) -> dict[str, Any]:
        """A small valid L2 Case holding ``expect``: the user says hello, the scripted model
        says hello back. Override any field by its JSON name (``tools=[...]``, ``tier=``)."""
        document: dict[str, Any] = {
            "id": "kit-case",
            "tier": "l2",
            "agent": next(iter(self.agents)),
            "input": [{"role": "user", "content": "Hello, please help me with my order."}],
            "script": [{"kind": "text", "text": "Hello! Happy to help with your order."}],
            "expect": [dict(e) for e in expect],
        }
        document.update(overrides)
        return document

    def problems(self, case: Mapping[str, Any]) -> list[str]:
        """The loader's refusals of one Case dict, ``$.path: reason`` each (``[]``: valid)."""
        try:
            self._load([case]).host.close()
        except CorpusError as exc:
            return [f"{p.path}: {p.reason}" for p in exc.problems]
        return []

    def run(self, case: Mapping[str, Any]) -> TrialResult:
        """Run one Case dict end to end (its first Trial): fixtures, the Host's real loop on
        the scripted binding, read-back, scoring. A refused Case raises :class:`CaseRefused`."""
        card = self.sweep([case])
        return card.trials[0]

    def sweep(self, cases: Sequence[Mapping[str, Any]]) -> Scorecard:
        """A Sweep of these Case dicts on the scripted binding: the Scorecard."""
        try:
            loaded = self._load(cases)
        except CorpusError as exc:
            raise CaseRefused([f"{p.path}: {p.reason}" for p in exc.problems]) from None
        try:
            return run_sweep(loaded.corpus, loaded.host, ScriptedBinding(), self.plugin_set)
        finally:
            loaded.host.close()

    def write(self, cases: Sequence[Mapping[str, Any]]) -> Path:
        """A fresh Corpus directory holding ``cases`` (``<id>.json`` each) and the Soul."""
        corpus = self.directory / f"corpus-{next(self._counter)}"
        corpus.mkdir(parents=True)
        declared = sorted(
            {str(t.get("name")) for c in cases for t in c.get("tools", ()) if isinstance(t, dict)}
            | {str(n) for c in cases for n in c.get("platformTools", ())}
        )
        write_soul(corpus / "soul", self.agents, declared)
        for case in cases:
            (corpus / f"{case.get('id', 'kit-case')}.json").write_text(json.dumps(case))
        return corpus

    def _load(self, cases: Sequence[Mapping[str, Any]]) -> _Loaded:
        corpus = self.write(cases)
        plugins = self.plugin_set
        factory = self.host_factory or plugins.hosts.get(self.host)
        if factory is None:
            known = ", ".join(sorted(plugins.hosts)) or "none"
            raise LookupError(f"no Host {self.host!r} is installed (installed: {known})")
        host = factory(corpus / "soul")
        try:
            return _Loaded(Loader(plugins, host, judge="no-judge").load(corpus), host)
        except BaseException:
            host.close()
            raise

    def clean(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class _Loaded:
    corpus: Corpus
    host: Host


def write_soul(soul: Path, agents: Mapping[str, Agent], declared: Sequence[str] = ()) -> Path:
    """A minimal Eval Soul the runtime's own loader accepts: one ``agents/<slug>/AGENT.md`` per
    agent (its name is its folder), no guardrails, no skills. ``declared`` is accepted for
    callers that name the Case's Tools; an agent with ``tools=None`` is simply unrestricted."""
    del declared
    for slug, agent in agents.items():
        folder = soul / "agents" / slug
        folder.mkdir(parents=True, exist_ok=True)
        restrictions = (
            ""
            if agent.tools is None
            else f"capabilityRestrictions:\n  tools:\n    allow: {json.dumps(list(agent.tools))}\n"
        )
        (folder / "AGENT.md").write_text(
            f"---\ndescription: The {slug} agent of the test kit's Soul.\n"
            f"autonomy: {agent.autonomy}\n{restrictions}---\n{agent.personality}\n"
        )
    return soul
