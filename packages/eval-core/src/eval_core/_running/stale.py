"""Stale recorded scripts: the Cases whose replay shows the model something else than their
recording did (``eval check --drift``, and ``eval record --stale`` re-records them).

Found by replaying them, free, on the scripted binding through the chosen Host: drift is what
the runtime does with the Case now, which only running it can tell (:mod:`.drift`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding

if TYPE_CHECKING:
    from eval_core._loading.opening import Opened


def stale_cases(opened: Opened) -> dict[str, list[str]]:
    """Each recorded Case whose replay drifted, by id, with its drift notes (in Corpus order;
    a Case whose replay errored before any request is stale too, saying so)."""
    recorded = [case.id for case in opened.corpus.cases if case.recorded is not None]
    if not recorded:
        return {}
    card = run_sweep(opened.corpus, opened.host, ScriptedBinding(), opened.plugins, select=recorded)
    stale: dict[str, list[str]] = {}
    for trial in card.trials:
        notes = list(trial.notes)
        if trial.outcome == "errored" and not trial.model_calls:
            notes.append(f"drift: its replay errored before any model request: {trial.error}")
        if notes:
            stale.setdefault(trial.case_id, []).extend(
                n for n in notes if n not in stale.get(trial.case_id, [])
            )
    return stale
