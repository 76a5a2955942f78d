"""The mutation catalogue stays applicable and true: every entry still names code that exists,
every Case it lists exists, and the bench's own mechanism turns a mutant's Cases red.

The kill matrix itself is ``bench/mutation_table.py`` (minutes); this checks, in seconds, that
the catalogue has not rotted under the runtime's changes and that the bench measures the code
it mutates (a copy shadowing the editable install), not the tree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet
from tests.bench_scripts import bench_script
from tests.conftest import ROOT
from tests.mutation_catalogue import CATALOGUE, HOST, RUNTIME, Mutation

END_TO_END = (
    "loop-iteration-limit-off-by-one",  # the runtime, at L2
    "runs-fence-accepts-older-generation",  # the runtime, at L3
    "host-l2-hosting-ignored",  # the Host adapter
)
"""Entries swept for real, one subprocess each: small, stable red sets in both packages."""


def bench() -> ModuleType:
    """``bench/mutation_table.py`` (a script, not a package), loaded as a module."""
    return bench_script("mutation_table")


@pytest.fixture(scope="module")
def host(plugins: PluginSet) -> Iterator[Host]:
    found = plugins.hosts["agent-runtime"](ROOT / "corpus" / "soul")
    yield found
    found.close()


@pytest.fixture(scope="module")
def case_ids(plugins: PluginSet, host: Host) -> set[str]:
    """Every Case id of both suites, the red-team's derived variants included."""
    from eval_core._loading.loader import Loader

    loader = Loader(plugins, host, judge="no-judge")
    suites = (ROOT / "corpus", ROOT / "corpus" / "red-team")
    return {case.id for suite in suites for case in loader.load(suite).cases}


def test_the_catalogue_is_large_and_its_ids_are_unique() -> None:
    assert len(CATALOGUE) >= 80
    twice = [i for i, n in Counter(m.id for m in CATALOGUE).items() if n > 1]
    assert not twice, twice


@pytest.mark.parametrize("mutation", CATALOGUE, ids=lambda m: m.id)
def test_each_entry_applies_to_todays_code(mutation: Mutation) -> None:
    assert mutation.file.startswith((RUNTIME, HOST)), mutation.file
    assert mutation.old != mutation.new
    assert mutation.breaks.strip() and "\n" not in mutation.breaks
    assert mutation.red == tuple(sorted(set(mutation.red))), "red: sorted, each Case once"
    assert not (mutation.red and mutation.equivalent), "an equivalent mutation kills nothing"
    text = (ROOT / mutation.file).read_text()
    assert text.count(mutation.old) == 1, f"'old' occurs {text.count(mutation.old)} times"


def test_every_red_case_exists(case_ids: set[str]) -> None:
    unknown = {m.id: sorted(set(m.red) - case_ids) for m in CATALOGUE if set(m.red) - case_ids}
    assert not unknown, unknown


def test_the_bench_turns_a_mutants_cases_red() -> None:
    """Each sweep is a subprocess over a copy of the code with the mutation applied; exactly the
    Cases the catalogue lists for it FAIL (a copy that did not shadow the tree would pass them;
    a Case added to the Corpus that the mutant turns red must join the entry's ``red``)."""
    table = bench()
    chosen = [m for m in CATALOGUE if m.id in END_TO_END]
    assert len(chosen) == len(END_TO_END) and all(m.red for m in chosen)
    with ThreadPoolExecutor(max_workers=len(chosen)) as pool:
        outcomes = list(pool.map(table.sweep_mutant, chosen))
    for mutation, outcome in zip(chosen, outcomes, strict=True):
        assert outcome.crashed is None, (mutation.id, outcome.crashed)
        failed = outcome.with_verdict("FAIL")
        assert set(mutation.red) == failed, (
            mutation.id,
            f"listed but green {sorted(set(mutation.red) - failed)}",
            f"red but not listed {sorted(failed - set(mutation.red))}",
        )
        assert not outcome.with_verdict("ERR"), (mutation.id, outcome.with_verdict("ERR"))


def test_a_stale_entry_is_reported_not_applied(tmp_path: Path) -> None:
    table = bench()
    snap = tmp_path / "snapshot"
    source = ROOT / "packages" / "agent-runtime" / "src"
    (snap / "agent-runtime" / "agent_runtime" / "turn").mkdir(parents=True)
    (snap / "agent-runtime" / "agent_runtime" / "turn" / "loop.py").write_text(
        (source / "agent_runtime" / "turn" / "loop.py").read_text()
    )
    gone = Mutation(
        id="gone", file=RUNTIME + "turn/loop.py", old="no such line", new="x", breaks="nothing"
    )
    outcome = table.run_mutation(gone, snap)
    assert outcome.stale and outcome.crashed is not None and not outcome.verdicts
