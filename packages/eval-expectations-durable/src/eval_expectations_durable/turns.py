"""How many Turns a Case runs, and the rule that a ``turnIndex`` names one of them.

The rule concerns every kind with a ``turnIndex`` (the run-events family's, and any other
family's), on every Case: it is checked by the run-events plug-in, whose load rule sees every
Case anyway, so the journeys plug-in is imported only by a Corpus with a ``journey``.
"""

from __future__ import annotations

from eval_core.kinds import CaseBase


def turn_count(case: CaseBase) -> int:
    """How many Turns the Case runs: the first, plus its journey."""
    return 1 + len(case.field("journey") or ())


def turn_index_problems(case: CaseBase) -> list[tuple[str, str]]:
    """Each Expectation whose ``turnIndex`` names a Turn past the Case's last."""
    turns = turn_count(case)
    problems: list[tuple[str, str]] = []
    for index, expectation in enumerate(case.expect):
        turn_index = getattr(expectation, "turn_index", None)
        if isinstance(turn_index, int) and turn_index > turns:
            problems.append(
                (
                    f"$.expect[{index}].turnIndex",
                    f"Turn {turn_index} does not exist: this Case runs {turns} Turn(s)",
                )
            )
    return problems
