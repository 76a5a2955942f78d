"""How the turn family's tests score a table of Cases: each test module lists its kinds'
(Expectation, Evidence, passes, needle) rows, and this one rule reads them, so every kind is
held to the same promise: a verdict always says why, and each kind is shown passing, failing
and failing on nothing observed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from eval_core._case.evidence import Evidence
from eval_core._case.kinds import Expectation, KindSpec

Row = tuple[Expectation, Evidence, bool, str]


def ev(**fields: Any) -> Evidence:
    """L2 Evidence holding only ``fields`` (every other witness not observed)."""
    return Evidence(tier="l2", **fields)


class Scoring:
    """A family's kinds by struct: scores an Expectation with its kind's own scorer."""

    def __init__(self, specs: Mapping[type[Expectation], KindSpec]) -> None:
        self.specs = specs

    @classmethod
    def of(cls, *kinds: Sequence[KindSpec]) -> Scoring:
        """The kinds of these ``eval_kinds()`` lists, each by its struct."""
        return cls({spec.struct: spec for listed in kinds for spec in listed})

    def __call__(self, e: Expectation, evidence: Evidence) -> tuple[bool, str]:
        verdict = self.specs[type(e)].scorer(e, evidence)
        assert verdict.detail.strip(), "detail is always filled"
        return verdict.passed, verdict.detail

    def check_total(self, e: Expectation) -> None:
        """The kind's load-time ``check``, if it has one, never raises on ``e`` and names each
        problem by a ``.field`` path suffix and a reason."""
        check = self.specs[type(e)].check
        if check is not None:
            for suffix, reason in check(e, None):
                assert suffix.startswith(".") and reason

    def row(self, e: Expectation, evidence: Evidence, expected: bool, needle: str) -> None:
        """One row of a table: the verdict is ``expected`` and its detail says ``needle``."""
        ok, detail = self(e, evidence)
        assert ok is expected, detail
        assert needle in detail, detail

    def covers(self, rows: Sequence[Row], unobserved: Evidence) -> None:
        """Every kind has a passing row, a failing one and one failing on ``unobserved``."""
        for struct in self.specs:
            outcomes = {(exp, ev_ is unobserved) for e, ev_, exp, _ in rows if type(e) is struct}
            assert {(True, False), (False, False), (False, True)} <= outcomes, struct
