"""A check marked ``own_cases`` sees only the Cases that use its plug-in; others see every Case.

The loader skips a marked check for a Case that sets none of the plug-in's fields and uses
none of its kinds (issue 17: most plug-ins own few Cases of a large Corpus). Skipping must never
hide a problem: the Cases that do use the plug-in are still checked and refused.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from eval_core._loading.corpus import CorpusError
from eval_core._loading.loader import Loader
from eval_core._plugins.plugins import load_plugins
from tests.conftest import Site, WriteCase, minimal_case, reference_host

OWNED = """
from eval_core._case.case import CaseField
from eval_core._plugins.hookspecs import hookimpl, own_cases
from eval_core._case.kinds import Expectation, KindSpec, Verdict

SEEN = []


class Stamp(Expectation, tag="acme_stamp", frozen=True):
    pass


@hookimpl
def eval_kinds():
    return [KindSpec(struct=Stamp, scorer=lambda e, evidence: Verdict(True, "stamped"))]


@hookimpl
def eval_case_fields():
    return [CaseField(name="acme_ticket", type=str)]


@hookimpl
@own_cases
def eval_check_case(case, context):
    SEEN.append(case.id)
    if case.field("acme_ticket") == "":
        return [("$.acmeTicket", "must name a ticket")]
    return []
"""

EVERY = """
from eval_core._plugins.hookspecs import hookimpl

SEEN = []


@hookimpl
def eval_check_case(case, context):
    SEEN.append(case.id)
    return []
"""


def _load(corpus_dir: Path) -> None:
    plugins = load_plugins()
    with reference_host(plugins, corpus_dir / "soul") as host:
        Loader(plugins, host, judge="no-judge").load(corpus_dir)


@pytest.fixture
def installed(site: Site) -> Site:
    site.install("acme-owned", "1.0.0", "acme_owned", OWNED)
    site.install("acme-every", "1.0.0", "acme_every", EVERY)
    return site


def test_a_marked_check_sees_only_its_own_cases_and_an_unmarked_one_sees_all(
    installed: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case("by-field", acmeTicket="T-1"))
    write_case(minimal_case("by-kind", expect=[{"kind": "acme_stamp"}]))
    write_case(minimal_case("neither"))
    _load(corpus_dir)
    owned = sys.modules["acme_owned"].SEEN
    every = sys.modules["acme_every"].SEEN
    assert sorted(owned) == ["by-field", "by-kind"]
    assert sorted(every) == ["by-field", "by-kind", "neither"]


def test_a_skipped_check_hides_no_problem_of_a_case_that_uses_the_plugin(
    installed: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    write_case(minimal_case("empty-ticket", acmeTicket=""))
    write_case(minimal_case("neither"))
    with pytest.raises(CorpusError) as refused:
        _load(corpus_dir)
    found = [(Path(p.file).stem, p.path, p.reason) for p in refused.value.problems]
    assert found == [("empty-ticket", "$.acmeTicket", "must name a ticket")]
