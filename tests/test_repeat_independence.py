"""Trials are independent: ``--repeat N`` is N copies of one Trial, never a sequence.

The noise floor reads a Case that disagrees with itself over ``--repeat`` as noise; on the
scripted binding there is none, so any disagreement is state one Trial left for the next (a
shared provider numbering on from the last Trial's notes, a Host keeping a Run). Sweeps run
in-process through the real loader, Host, fixtures and scripted binding; the plug-ins, the
Host and both shipped Corpora load once per module.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_core._loading.corpus import Corpus
from eval_core._loading.loader import Loader
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from eval_core._running.runner import run_sweep
from eval_core._running.scorecard import Scorecard
from eval_core._running.scripted import ScriptedBinding
from tests.conftest import ROOT, SOUL

MCP_APPROVALS = "l3-mcp-every-approval-is-its-own-durable-event"
Verdict = tuple[str, tuple[tuple[str, bool], ...], int]
"""A Trial's verdict: its outcome, each Expectation's kind and pass, and how many witness
contradictions it had (details carry Run ids and timings, which differ between any two
Trials)."""


@dataclass(frozen=True)
class Shipped:
    """The Host and the two shipped Corpora, by name."""

    host: Host
    corpora: dict[str, Corpus]


@pytest.fixture(scope="module")
def shipped(plugins: PluginSet) -> Iterator[Shipped]:
    host = plugins.hosts["agent-runtime"](SOUL)
    loader = Loader(plugins, host, judge="no-judge")
    corpora = {"corpus": loader.load(ROOT / "corpus")}
    corpora["red-team"] = Loader(plugins, host, judge="no-judge").load(ROOT / "corpus" / "red-team")
    try:
        yield Shipped(host, corpora)
    finally:
        host.close()


def sweep(
    shipped: Shipped,
    plugins: PluginSet,
    corpus: str,
    cases: Sequence[str],
    repeat: int,
    jobs: int = 1,
) -> Scorecard:
    return run_sweep(
        shipped.corpora[corpus],
        shipped.host,
        ScriptedBinding(),
        plugins,
        select=cases,
        repeat=repeat,
        jobs=jobs,
    )


def verdicts(card: Scorecard) -> dict[str, list[Verdict]]:
    """Each Case's Trial verdicts, in Trial order."""
    by_case: dict[str, list[tuple[int, Verdict]]] = defaultdict(list)
    for trial in card.trials:
        marks = tuple((e.kind, e.passed) for e in trial.expectations)
        verdict = (trial.outcome, marks, len(trial.contradictions))
        by_case[trial.case_id].append((trial.trial, verdict))
    return {case: [v for _, v in sorted(trials)] for case, trials in by_case.items()}


def on_shared_resources(plugins: PluginSet, shipped: Shipped) -> list[tuple[str, str]]:
    """The Cases a fixture with a Sweep-scoped resource (a provider) applies to: where one
    Trial's state can outlive it."""
    sharing = [r.fixture for r in plugins.fixtures if r.fixture.warm is not None]
    return [
        (name, case.id)
        for name, corpus in shipped.corpora.items()
        for case in corpus.cases
        if any(fixture.applies_to(case) for fixture in sharing)
    ]


@settings(max_examples=8, deadline=None)
@given(data=st.data(), repeat=st.integers(min_value=1, max_value=3), jobs=st.sampled_from([1, 2]))
def test_repeat_n_is_n_copies_of_one_trial(
    shipped: Shipped, plugins: PluginSet, data: st.DataObject, repeat: int, jobs: int
) -> None:
    """Any Cases, any N, one Trial at a time or two at once: N Trials of a Case give the
    verdict its single Trial gives, N times. Half the draws come from the Cases on a shared
    resource, so a few examples reach them."""
    every = [(name, c.id) for name, corpus in shipped.corpora.items() for c in corpus.cases]
    sharing = on_shared_resources(plugins, shipped)
    assert sharing, "no shipped Case uses a shared resource: the draw below is lopsided"
    one = st.one_of(st.sampled_from(every), st.sampled_from(sharing))
    chosen = data.draw(st.lists(one, min_size=1, max_size=6, unique=True), label="cases")
    by_corpus: dict[str, list[str]] = defaultdict(list)
    for corpus, case in chosen:
        by_corpus[corpus].append(case)
    for corpus, cases in by_corpus.items():
        once = verdicts(sweep(shipped, plugins, corpus, cases, repeat=1))
        repeated = verdicts(sweep(shipped, plugins, corpus, cases, repeat=repeat, jobs=jobs))
        assert set(once) == set(cases), once
        assert repeated == {case: trials * repeat for case, trials in once.items()}


def test_every_mcp_approval_trial_passes_on_one_provider(
    shipped: Shipped, plugins: PluginSet
) -> None:
    """The Case that caught the carry-over: its provider serves all three Trials (one
    process per Sweep), and the third still sees its own notes numbered from ``note-1``."""
    card = sweep(shipped, plugins, "corpus", [MCP_APPROVALS], repeat=3)
    assert [(t.trial, t.outcome) for t in card.trials] == [
        (1, "passed"),
        (2, "passed"),
        (3, "passed"),
    ], [e.detail for t in card.trials for e in t.expectations if not e.passed]
