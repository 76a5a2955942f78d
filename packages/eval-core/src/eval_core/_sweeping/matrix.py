"""The Matrix: the same Corpus swept over two or more models, one after another.

A second model is a control, not a contest: when the models disagree on a Case, that Case (or
the harness) deserves a look; when one model is unexercised where another passed, the guard is
covered. Legs run strictly in declared order, never at once, each with the full ceiling.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from eval_core._running.scorecard import COMPARABLE, Scorecard, not_cleared


class Leg(msgspec.Struct, frozen=True):
    """One model's Sweep, or why it could not be measured."""

    model_id: str
    card: Scorecard | None
    unavailable: str | None = None


def unavailable_reason(card: Scorecard) -> str | None:
    """A leg whose every Trial errored measured nothing about the Corpus."""
    if card.errored and card.passed + card.failed + card.unexercised == 0:
        first = next((t.error for t in card.trials if t.error), "")
        return f"every Trial errored: {first}"
    return None


def covered(legs: Sequence[Leg]) -> frozenset[str]:
    """Cases that passed on some leg: an UNEX elsewhere is a guard the Matrix did exercise."""
    return frozenset(
        case
        for leg in legs
        if leg.card is not None and leg.unavailable is None
        for case, verdict in leg.card.verdicts().items()
        if verdict == "PASS"
    )


def not_cleared_matrix(legs: Sequence[Leg]) -> list[str]:
    reasons: list[str] = []
    passed_somewhere = covered(legs)
    for leg in legs:
        if leg.unavailable is not None or leg.card is None:
            reasons.append(f"{leg.model_id}: never measured ({leg.unavailable})")
        else:
            reasons.extend(not_cleared(leg.card, passed_somewhere))
    for leg in legs:
        if leg.card is None or leg.unavailable is not None:
            continue
        for case, verdict in leg.card.verdicts().items():
            if verdict == "UNEX" and case not in passed_somewhere:
                reasons.append(f"no model exercised the guard on {case}")
    return list(dict.fromkeys(reasons))


def render(legs: Sequence[Leg], case_ids: Sequence[str], corpus_hash: str, ms: float) -> str:
    names = [leg.model_id for leg in legs]
    grid: dict[str, dict[str, str]] = {}
    for leg in legs:
        verdicts = leg.card.verdicts() if leg.card is not None and not leg.unavailable else {}
        for case in case_ids:
            cell = "n/a" if leg.card is None or leg.unavailable else verdicts.get(case, "-")
            grid.setdefault(case, {})[leg.model_id] = cell
    width = max([len("Case"), *map(len, case_ids)])
    lines = [f"Matrix  corpus={corpus_hash[:16]}  {len(legs)} models  {ms:.0f}ms"]
    lines.append(f"{'Case':<{width}}  " + "  ".join(f"{n:<6}" for n in names))
    for case in case_ids:
        lines.append(f"{case:<{width}}  " + "  ".join(f"{grid[case][n]:<6}" for n in names))
    measured = [leg for leg in legs if leg.card is not None and leg.unavailable is None]
    if len(measured) >= 2:
        comparable = [
            c for c in case_ids if all(grid[c][leg.model_id] in COMPARABLE for leg in measured)
        ]
        disagree = [c for c in comparable if len({grid[c][leg.model_id] for leg in measured}) > 1]
        if disagree:
            lines.append(
                f"DISAGREEMENT  {len(disagree)} of {len(comparable)} comparable Cases "
                "(a control, not a ranking: look at the Case and the harness before the model)"
            )
            for case in disagree:
                cells = "  ".join(f"{leg.model_id}={grid[case][leg.model_id]}" for leg in measured)
                lines.append(f"  {case}  {cells}")
        else:
            lines.append(
                f"Models agree on all {len(comparable)} comparable Cases (a control, not a ranking)"
            )
        passed_somewhere = covered(legs)
        unex = [c for c in case_ids if any(grid[c][leg.model_id] == "UNEX" for leg in measured)]
        for case in unex:
            if case in passed_somewhere:
                lines.append(f"GUARD COVERED  {case}: unexercised on one model, passed on another")
            else:
                lines.append(f"GUARD UNCOVERED  {case}: no model exercised the guard")
        not_comparable = [
            c for c in case_ids if any(grid[c][leg.model_id] in ("ERR", "-") for leg in measured)
        ]
        if not_comparable:
            lines.append("NOT COMPARABLE")
            for case in not_comparable:
                cells = "  ".join(f"{leg.model_id}={grid[case][leg.model_id]}" for leg in measured)
                lines.append(f"  {case}  {cells}")
    for leg in legs:
        if leg.card is None or leg.unavailable is not None:
            lines.append(f"{leg.model_id}  NOT MEASURED  {leg.unavailable}")
    return "\n".join(lines) + "\n"
