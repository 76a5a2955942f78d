"""The pytest plug-in of ``eval-kit`` (entry point ``pytest11``): the testing kit's fixture, and
a Corpus collected as test items, for teams whose CI speaks pytest.

- ``eval_kit``: a :class:`eval_kit.testing.Kit` over the test's ``tmp_path``; and for one
  thing each, ``eval_evidence`` (build Evidence), ``eval_run`` (run a Case dict end to end) and
  ``eval_problems`` (check a Case dict: its problems).
- ``pytest --eval-corpus corpus`` (repeatable; or ``eval_corpus = ["corpus"]`` under
  ``[tool.pytest.ini_options]``) collects each Case as an item named by its id, so ``-k``
  selects Cases. Alone on the command line it collects only the Corpus; beside paths, it joins
  them. From the ini file, the Corpus joins the tests when pytest chooses the paths (``pytest``
  alone, like ``testpaths``), once even when a searched directory holds it; given paths
  (``pytest tests/test_x.py``) collect a Corpus only where they reach it. The Corpus opens as
  ``eval sweep`` opens it: ``eval.lock`` is checked (``--eval-unlocked`` runs anyway), the Host
  is ``--eval-host`` (``agent-runtime``), and a refusal is a collection error with the
  loader's message. Each item runs its Case's Trials on the scripted binding: a Trial that
  errored (a vendor, harness or plug-in fault) is an error of the item's setup, apart from a
  failed Expectation, which fails the item with its kind and detail; a Case that measures a
  rate is skipped, saying so. The corpusHash is in the summary. Under pytest-xdist each worker
  opens the Corpus and its own Host; the items are the same.

Imports are lazy: loading this plug-in costs a pytest run nothing until it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from eval_core.commands import Opened
    from eval_core.hosts import CaseBase, Evidence, SweepResources, TrialResult
    from eval_kit.testing import Kit

_OPENED = pytest.StashKey[list["Opened"]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("eval", "eval: Cases of a Corpus as test items")
    group.addoption(
        "--eval-corpus",
        action="append",
        default=[],
        metavar="DIR",
        help="Collect this Corpus's Cases as test items (repeatable).",
    )
    group.addoption("--eval-host", default=None, help="The Host by name (agent-runtime).")
    group.addoption(
        "--eval-unlocked",
        action="store_true",
        default=False,
        help="Run even if the installed plug-ins differ from eval.lock.",
    )
    parser.addini("eval_corpus", "Corpus directories collected as test items.", type="paths")
    parser.addini("eval_host", "The Host (system under test) by name.", default="agent-runtime")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "eval_case: a Case of an eval Corpus, run as a test item")
    given = [Path(p) for p in config.getoption("eval_corpus")]
    corpora = given or [Path(p) for p in config.getini("eval_corpus")]
    config.stash[_OPENED] = []
    if not corpora:
        return
    resolved = [c.resolve() for c in corpora]
    config._eval_corpora = resolved  # type: ignore[attr-defined]
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    if given and not explicit:
        config.args[:] = [str(c) for c in resolved]  # the Corpus alone, not the testpaths
        return
    if not given and explicit:
        return  # like testpaths: `pytest tests/x.py` runs no Case unless a path reaches one
    searched = [Path(a.split("::")[0]).resolve() for a in config.args]
    for corpus in resolved:  # a Corpus a searched directory holds is collected there, once
        if not any(corpus.is_relative_to(path) for path in searched):
            config.args.append(str(corpus))


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    corpora = getattr(parent.config, "_eval_corpora", ())
    if path.resolve() in corpora:
        return CorpusCollector.from_parent(parent, path=path)
    return None


@pytest.fixture
def eval_kit(tmp_path: Path) -> Kit:
    """A :class:`eval_kit.testing.Kit` over this test's temporary directory."""
    from eval_kit.testing import Kit

    return Kit(tmp_path / "eval-kit")


@pytest.fixture
def eval_evidence() -> Callable[..., Evidence]:
    """:func:`eval_kit.testing.evidence`: Evidence by hand, with a family's typed records."""
    from eval_kit.testing import evidence

    return evidence


@pytest.fixture
def eval_run(eval_kit: Kit) -> Callable[[Mapping[str, Any]], TrialResult]:
    """Run one Case dict end to end on the scripted binding: ``eval_kit.run``."""
    return eval_kit.run


@pytest.fixture
def eval_problems(eval_kit: Kit) -> Callable[[Mapping[str, Any]], list[str]]:
    """The loader's refusals of one Case dict (``[]`` when valid): ``eval_kit.problems``."""
    return eval_kit.problems


class CorpusCollector(pytest.Directory):
    """A Corpus directory: one item per Case, in id order, opened as ``eval sweep`` does."""

    def collect(self) -> Iterator[pytest.Item]:
        from eval_core.commands import open_corpus
        from eval_core.hosts import SweepResources

        config = self.config
        host = config.getoption("eval_host") or config.getini("eval_host")
        opened = open_corpus(self.path, host, bool(config.getoption("eval_unlocked")))
        config.stash[_OPENED].append(opened)
        shared = SweepResources()
        config.add_cleanup(shared.close)
        config.add_cleanup(opened.host.close)
        for case in opened.corpus.cases:
            yield CaseItem.from_parent(self, name=case.id, case=case, opened=opened, shared=shared)

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str:
        from eval_core.commands import Refused

        if isinstance(excinfo.value, Refused):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


class CaseItem(pytest.Item):
    """One Case: its Trials run in setup (a fault errors it), its verdict is the call."""

    def __init__(
        self, *, case: CaseBase, opened: Opened, shared: SweepResources, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.opened = opened
        self.shared = shared
        self.trials: list[TrialResult] = []
        self.add_marker("eval_case")

    def setup(self) -> None:
        from eval_core.hosts import ScriptedBinding, run_trial
        from eval_core.records import made_safe

        plugins = self.opened.plugins
        for number in range(1, max(1, self.case.trials) + 1):
            result = run_trial(
                self.case,
                number,
                self.opened.host,
                ScriptedBinding(),
                plugins.kinds,
                plugins.fixtures,
                self.shared,
                checks=plugins.witness_checks,
            )
            self.trials.append(made_safe(result))
        self.user_properties.append(("corpusHash", self.opened.corpus.hash))
        errored = [t for t in self.trials if t.outcome == "errored"]
        if errored:  # failing in setup makes it an error, apart from a verdict
            lines = [f"ERR  {self.case.id}#{t.trial}  {t.error}" for t in errored]
            pytest.fail("\n".join(lines), pytrace=False)

    def runtest(self) -> None:
        from eval_core.records import case_verdict

        verdict = case_verdict(self.trials)
        self.user_properties.append(("verdict", verdict))
        if self.opened.plugins.probabilistic(self.case):
            pytest.skip(f"{self.case.id} measures a rate, never gated ({verdict})")
        if verdict == "PASS":
            return
        lines = [f"{verdict}  {self.case.id}"]
        for trial in self.trials:
            if trial.vacuous:
                lines.append(f"  #{trial.trial}: vacuous: it expects nothing")
            for result in trial.expectations:
                if not result.passed:
                    lines.append(f"  #{trial.trial}  - {result.kind}: {result.detail}")
            if trial.unexercised:
                lines.append(f"  #{trial.trial}  unexercised: {trial.unexercised}")
            if trial.output is not None:
                lines.append(f"  #{trial.trial}  answer: {trial.output!r}")
        pytest.fail("\n".join(lines), pytrace=False)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        source = self.path / f"{self.case.id.split('--')[0]}.json"
        return source, None, f"eval Case {self.case.id} [{self.case.tier}]"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The corpusHash of each collected Corpus (under xdist, as the workers reported it)."""
    opened = config.stash.get(_OPENED, [])
    for each in opened:
        corpus = each.corpus
        terminalreporter.write_line(
            f"eval: {corpus.directory}  {len(corpus.cases)} Cases  suite={corpus.suite}  "
            f"corpusHash {corpus.hash}" + ("  (unlocked)" if each.unlocked else "")
        )
    if opened:
        return
    reported = {
        str(value)
        for reports in terminalreporter.stats.values()
        for report in reports
        for key, value in getattr(report, "user_properties", ())
        if key == "corpusHash"
    }
    for digest in sorted(reported):
        terminalreporter.write_line(f"eval: corpusHash {digest}")
