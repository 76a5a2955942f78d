"""The Sweep's hooks are general: a team's own gate, installed like any plug-in, judges each leg
of `eval sweep` (a note, a reason that does not clear) and writes its own file after the
Scorecard; a gate that raises is a reason naming its distribution, never a crash."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import Site, WriteCase, minimal_case

TEAM_GATE = """
from pathlib import Path

from eval_core.kinds import hookimpl


@hookimpl
def eval_sweep_leg(options, leg, commit, scrub):
    card = leg.card
    leg.notes.append(f"TEAM  {leg.name}: {card.passed} passed of {len(card.trials)}")
    if card.passed < 2:
        leg.reasons.append(f"{leg.name}: the team wants two passing Trials, not {card.passed}")
    leg.states = {t.case_id: "seen" for t in card.trials}


@hookimpl
def eval_sweep_files(options, corpus, legs, trials):
    states = [leg.states for leg in legs]
    path = options.root / "team-gate.txt"
    return [("the team's gate", path, lambda: repr((len(trials), states)).encode())]
"""

RAISING_GATE = """
from eval_core.kinds import hookimpl


@hookimpl
def eval_sweep_leg(options, leg, commit, scrub):
    raise RuntimeError("the gate's ticket server is down")
"""


def _one_case_swept(
    site: Site, corpus_dir: Path, write_case: WriteCase
) -> subprocess.CompletedProcess[str]:
    """`eval sweep` of a one-Case Corpus with the site's gates: it does not clear (exit 1)."""
    write_case(minimal_case("only"))
    result = site.eval("sweep", str(corpus_dir), "--unlocked", cwd=corpus_dir.parent)
    assert result.returncode == 1, result.stderr
    return result


def test_a_teams_own_gate_adds_a_note_a_reason_and_a_file(
    site: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    site.install("acme-gate", "1.0", "acme_gate", TEAM_GATE)
    result = _one_case_swept(site, corpus_dir, write_case)
    assert "TEAM  scripted: 1 passed of 1\n" in result.stdout
    assert result.stdout.endswith(
        "NOT CLEARED\n  - scripted: the team wants two passing Trials, not 1\n"
    )
    written = (corpus_dir.parent / "team-gate.txt").read_text()
    assert written == repr((1, [{"only": "seen"}]))


def test_a_gate_that_raises_does_not_clear_and_names_its_distribution(
    site: Site, corpus_dir: Path, write_case: WriteCase
) -> None:
    site.install("acme-broken-gate", "0.1", "acme_broken_gate", RAISING_GATE)
    result = _one_case_swept(site, corpus_dir, write_case)
    assert "Traceback" not in result.stderr
    assert "plug-in acme-broken-gate 0.1" in result.stdout
    assert "could not judge the leg scripted: RuntimeError: the gate's ticket server is down" in (
        result.stdout
    )


def test_without_a_gate_installed_its_flags_are_refused_and_a_sweep_needs_none() -> None:
    import pytest

    from eval_core._loading.opening import Refused
    from eval_core._plugins.commands import CANONICAL
    from eval_core._plugins.plugins import build, discover
    from eval_core._sweeping.gating import check_gated
    from eval_core._sweeping.options import SweepOptions

    without = build([p for p in discover() if p[1] != "eval-release"])
    check_gated(SweepOptions(), without)  # a plain Sweep asks nothing of a gate
    for flags, named, hook in (
        ({"baseline": CANONICAL}, "--baseline", "eval_sweep_leg"),
        ({"promote": True, "junit_xml": Path("j.xml")}, "--promote, --junit-xml", "eval_sweep_leg"),
        ({"junit_xml": Path("j.xml")}, "--junit-xml", "eval_sweep_files"),
    ):
        with pytest.raises(Refused, match=f"^{named}: no release gate is installed") as refused:
            check_gated(SweepOptions(**flags), without)
        assert f"implementing {hook}, such as eval-release" in str(refused.value)
    check_gated(SweepOptions(baseline=CANONICAL, promote=True), build(discover()))
