"""Which Trial of a Case is recorded, and which Cases cannot be: the first that passed; a
failed one only when asked; an errored one never; a Case whose journey scripts its own Turns
never (one recorded script cannot stand for it)."""

from __future__ import annotations

from pathlib import Path

from eval_core.records import Pointer, TrialResult
from eval_record.record import chosen

AT = Pointer(sha256="0" * 64, at=0, size=1)


def trial(outcome: str, number: int = 1, error: str | None = None) -> TrialResult:
    return TrialResult(case_id="c", trial=number, outcome=outcome, error=error)  # type: ignore[arg-type]


def test_the_first_trial_that_passed_is_recorded() -> None:
    trials = [(trial("failed", 1), AT), (trial("passed", 2), AT), (trial("passed", 3), AT)]
    assert chosen(trials, allow_failed=False) == (trials[1][0], "")


def test_a_failed_trial_only_when_asked_and_an_errored_one_never() -> None:
    failed = [(trial("errored", 1, "model_unreachable: down"), None), (trial("failed", 2), AT)]
    picked, why = chosen(failed, allow_failed=False)
    assert picked is None and "--allow-failed records it" in why
    assert chosen(failed, allow_failed=True) == (failed[1][0], "")
    errored = [(trial("errored", 1, "model_unreachable: down"), None)]
    picked, why = chosen(errored, allow_failed=True)
    assert picked is None and why == "it errored (model_unreachable: down): never recorded"


def test_a_case_whose_journey_scripts_its_own_turns_is_not_recorded() -> None:
    """A later Turn's own script is what a replay switches to: one recorded script cannot
    stand for it, so such a Case is skipped, naming the field."""
    from eval_core.commands import open_corpus
    from eval_core.records import Loader, load_plugins
    from eval_record.record import _scripted_elsewhere
    from tests.conftest import ROOT

    opened = open_corpus(ROOT / "corpus", "agent-runtime", True)
    try:
        loader = Loader(load_plugins(), opened.host)
        journey = opened.corpus.case("l3-journey-a-committed-skill-is-what-the-next-turn-loads")
        plain = opened.corpus.case("finance-refund-is-blocklisted")
        assert _scripted_elsewhere(journey, loader) == "journey"
        assert _scripted_elsewhere(plain, loader) is None
    finally:
        opened.host.close()


def test_two_recordings_in_one_second_get_two_trial_logs(tmp_path: Path) -> None:
    """A default trial log is never reused: a new one never overwrites, so a second recording
    in the same second would be refused (a drift check and its re-record often are)."""
    from eval_core.commands import Project
    from eval_record.live import _log_path

    project = Project(root=tmp_path)
    first, second = _log_path(project, "open/ai:mini"), _log_path(project, "open/ai:mini")
    assert first != second and first.parent == second.parent == tmp_path / "scorecards" / "trials"
    assert first.name.startswith("record-open_ai_mini-")
