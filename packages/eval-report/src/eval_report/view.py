"""What the report shows, computed once: the gate, the Sweeps, the Cases, delta and Matrix.

The template only lays this out. Verdicts, the gate's reasons, the delta and DISAGREEMENT are
the core's own rules (:mod:`eval_core._running.scorecard`, :mod:`eval_release.delta`,
:mod:`eval_core._sweeping.matrix`), never recomputed here another way. Each Trial and its transcript
go
to the page as recorded (:mod:`eval_report.payload`); the page lays a transcript out when its
Case is opened.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from eval_core.records import (
    COMPARABLE,
    WITNESSED,
    Scorecard,
    TrialResult,
    case_verdict,
    not_cleared,
)
from eval_release.api import (
    CaseDelta,
    ComparisonRefused,
    Leg,
    compare_scorecards,
    covered,
    not_cleared_matrix,
)
from eval_report import payload, plots
from eval_report.saved import Saved


@dataclass(slots=True)
class CaseRow:
    index: int
    id: str
    tier: str
    families: list[str]
    verdicts: list[str]  # one per Sweep, in the order given
    text: str  # what the text filter searches (lower case)
    duration_ms: float
    tokens: int
    reason: str  # the first failed Expectation's reason (or the error), for the table

    @property
    def time(self) -> str:
        return f"{self.duration_ms:.1f} ms"

    @property
    def rank(self) -> int:
        """How bad its worst verdict is (0: FAIL): the table shows failures first."""
        return min(_VERDICT_ORDER.index(v) if v in _VERDICT_ORDER else 9 for v in self.verdicts)


@dataclass(slots=True)
class DeltaView:
    model: str
    source: str
    refused: str | None = None
    rows: dict[str, list[CaseDelta]] = field(default_factory=dict)
    passed_before: int = 0
    passed_after: int = 0
    floor: bool = True


@dataclass(slots=True)
class MatrixView:
    models: list[str]
    comparable: int
    disagree: list[tuple[str, list[str]]]
    guard_covered: list[str]
    guard_uncovered: list[str]
    not_comparable: list[tuple[str, list[str]]]


@dataclass(slots=True)
class Report:
    sweeps: list[Scorecard]
    sources: list[str]
    cleared: bool
    reasons: list[str]
    cases: list[CaseRow]
    verdicts: list[str]
    tiers: list[str]
    families: list[str]
    deltas: list[DeltaView]
    matrix: MatrixView | None
    plots: plots.Plots
    payload: str
    trials: int


def build(sweeps: Sequence[Saved], baselines: Sequence[Saved] = ()) -> Report:
    cards = [s.card for s in sweeps]
    legs = [Leg(c.model_id, c) for c in cards]
    reasons = not_cleared_matrix(legs) if len(cards) > 1 else not_cleared(cards[0])
    delta_views = [_delta(cards, base) for base in baselines]
    for view in delta_views:
        regressed = len(view.rows.get("regressed", []))
        if regressed:
            reasons.append(f"{view.model}: {regressed} Case(s) regressed against the Baseline")
    family_of = _families(cards)
    recorded = [s.transcripts() for s in sweeps]
    data = payload.Payload([c.model_id for c in cards], family_of)
    places: list[dict[tuple[str, int], int]] = []
    for leg, card in enumerate(cards):
        places.append(data.leg(card.trials, recorded[leg]))
    order: dict[str, None] = {}
    for card in cards:
        for trial in card.trials:
            order.setdefault(trial.case_id)
    rows: list[CaseRow] = []
    by_sweep = [_by_case(card.trials) for card in cards]
    for index, case_id in enumerate(order):
        runs = [found.get(case_id, []) for found in by_sweep]
        tiers = [
            found.tier
            for leg, trials in enumerate(runs)
            for trial in trials
            if (found := recorded[leg].get((trial.case_id, trial.trial))) is not None
        ]
        kinds = {e.kind for trials in runs for trial in trials for e in trial.expectations}
        all_trials = [trial for trials in runs for trial in trials]
        rows.append(
            CaseRow(
                index=index,
                id=case_id,
                tier=tiers[0] if tiers else "?",
                families=sorted({family_of.get(k, "unknown") for k in kinds}),
                verdicts=[case_verdict(trials) for trials in runs],
                text=" ".join([case_id, *(_reasons(t) for t in all_trials)]).lower(),
                duration_ms=sum(t.duration_ms for t in all_trials),
                tokens=sum(t.usage.input_tokens + t.usage.output_tokens for t in all_trials),
                reason=next((r for t in all_trials if (r := _reason(t))), ""),
            )
        )
        data.case(
            [
                (leg, places[leg][(trial.case_id, trial.trial)])
                for leg, trials in enumerate(runs)
                for trial in trials
            ]
        )
    rows.sort(key=lambda row: (row.rank, row.id))  # failures first; the payload keeps its order
    return Report(
        sweeps=cards,
        sources=[", ".join(str(p) for p in s.sources) for s in sweeps],
        cleared=not reasons,
        reasons=reasons,
        cases=rows,
        verdicts=sorted({v for r in rows for v in r.verdicts}, key=_VERDICT_ORDER.index),
        tiers=sorted({r.tier for r in rows}),
        families=sorted({f for r in rows for f in r.families}),
        deltas=delta_views,
        matrix=_matrix(legs, list(order)) if len(cards) > 1 else None,
        plots=plots.build(cards, family_of),
        payload=data.encode(),
        trials=sum(len(c.trials) for c in cards),
    )


_VERDICT_ORDER = ["FAIL", "ERR", "UNEX", "VAC", "PASS", "-"]


def _by_case(trials: Sequence[TrialResult]) -> dict[str, list[TrialResult]]:
    found: dict[str, list[TrialResult]] = defaultdict(list)
    for trial in trials:
        found[trial.case_id].append(trial)
    return found


def _reason(trial: TrialResult) -> str | None:
    if trial.outcome == "errored":
        return trial.error
    if trial.contradictions:
        return f"{WITNESSED}: {trial.contradictions[0]}"
    failed = next((e for e in trial.expectations if not e.passed), None)
    if failed is not None:
        return f"{failed.kind}: {failed.detail}"
    return trial.unexercised


def _reasons(trial: TrialResult) -> str:
    """Everything the text filter should find a Trial by: each failed reason, its error."""
    failed = [f"{e.kind}: {e.detail}" for e in trial.expectations if not e.passed]
    contradicted = [f"{WITNESSED}: {line}" for line in trial.contradictions]
    return " ".join([*contradicted, *failed, trial.error or "", trial.unexercised or ""])


def _families(cards: Sequence[Scorecard]) -> dict[str, str]:
    """Each kind's family: the distribution that shipped it, as the Sweep recorded it."""
    found: dict[str, str] = {}
    for card in cards:
        for row in card.plugins:
            kind, owner = row.get("kind"), row.get("distribution")
            if isinstance(kind, str) and isinstance(owner, str):
                found.setdefault(kind, owner)
    return found


def _delta(cards: Sequence[Scorecard], base: Saved) -> DeltaView:
    source = ", ".join(str(p) for p in base.sources)
    after = next((c for c in cards if c.model_id == base.card.model_id), None)
    if after is None:
        return DeltaView(
            model=base.card.model_id,
            source=source,
            refused=f"no Sweep of model {base.card.model_id} was given to compare with",
        )
    try:
        found = compare_scorecards(base.card, after, base.corpus_commit)
    except ComparisonRefused as exc:  # never computed (the command refuses it first)
        return DeltaView(model=after.model_id, source=source, refused=str(exc))
    rows: dict[str, list[CaseDelta]] = defaultdict(list)
    for case in found.cases:
        rows[case.state].append(case)
    return DeltaView(
        model=after.model_id,
        source=source,
        rows=dict(rows),
        passed_before=found.passed_before,
        passed_after=found.passed_after,
        floor=found.floor,
    )


def _matrix(legs: Sequence[Leg], case_ids: Sequence[str]) -> MatrixView:
    """The grid's verdicts as :func:`eval_core.kinds.render` reads them, for a page."""
    grid = {
        case: [leg.card.verdicts().get(case, "-") if leg.card else "n/a" for leg in legs]
        for case in case_ids
    }
    comparable = [c for c in case_ids if all(v in COMPARABLE for v in grid[c])]
    passed_somewhere = covered(legs)
    unex = [c for c in case_ids if "UNEX" in grid[c]]
    return MatrixView(
        models=[leg.model_id for leg in legs],
        comparable=len(comparable),
        disagree=[(c, grid[c]) for c in comparable if len(set(grid[c])) > 1],
        guard_covered=[c for c in unex if c in passed_somewhere],
        guard_uncovered=[c for c in unex if c not in passed_somewhere],
        not_comparable=[(c, grid[c]) for c in case_ids if {"ERR", "-"} & set(grid[c])],
    )
