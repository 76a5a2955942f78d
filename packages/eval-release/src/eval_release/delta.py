"""The delta between two Scorecards of the same Corpus and model; anything else is refused.

Per Case: ``not-comparable`` when either side has no comparable verdict (ERR, UNEX, never ran);
``no-signal`` when either side saw the Case flap over ``--repeat`` (its verdict is noise);
``unchanged`` when both pass or both do not; ``fixed`` when it passes now; ``regressed`` when
it passed before. Only a regression fails the command.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

from eval_core.hosts import one_line
from eval_core.records import COMPARABLE, Scorecard

State = Literal["unchanged", "fixed", "regressed", "no-signal", "not-comparable"]


class ComparisonRefused(Exception):  # noqa: N818 - it names an outcome
    """Two Scorecards that measure different things: no delta is computed."""


class CaseDelta(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    case_id: str
    state: State
    before: str
    after: str


class Delta(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    model_id: str
    corpus_hash: str
    baseline_version: str
    cases: list[CaseDelta]
    floor: bool
    passed_before: int
    passed_after: int

    def of(self, state: State) -> list[CaseDelta]:
        return [c for c in self.cases if c.state == state]


def check_comparable(before: Scorecard, after: Scorecard) -> None:
    """Refuse two Scorecards that measure different things, saying, as far as they record it,
    which Cases and plug-ins differ."""
    if before.corpus_hash != after.corpus_hash:
        named = case_changes(before.case_hashes, after.case_hashes)
        plugins = plugin_changes(before.plugins, after.plugins, explain=False)
        lines = [UNRECORDED] if named is None else list(named)
        lines.extend(plugins)
        if not plugins and not named:
            lines.append(
                "the plug-ins both used are the same: the Cases, the Eval Soul, the platform "
                "Tools or the Judge differ"
                if named is None
                else "the Cases and the plug-ins both used are the same: the Eval Soul, the "
                "platform Tools or the Judge differ"
            )
        raise ComparisonRefused(
            f"different Corpora: corpusHash {one_line(before.corpus_hash[:16])} vs "
            f"{one_line(after.corpus_hash[:16])}"
            + "".join(f"\n  - {one_line(line)}" for line in lines)
        )
    if before.model_id != after.model_id:
        raise ComparisonRefused(
            f"different models: {one_line(before.model_id)} vs {one_line(after.model_id)}"
        )


UNRECORDED = "a Scorecard saved before per-Case digests were recorded cannot say which Cases differ"
LISTED = 10
"""Cases named per line of a refusal; the rest are counted."""


def case_changes(before: Mapping[str, str], after: Mapping[str, str]) -> list[str] | None:
    """The Cases two Corpora differ by, from the per-Case digests each Scorecard records
    (:attr:`~eval_core._running.scorecard.Scorecard.case_hashes`): one line each for those changed,
    added and removed, by id (a Case's id is its file's stem; a variant ``<case>--<strategy>``
    is folded into its Case when both are listed). ``[]`` when every Case is the same;
    ``None`` when a side records no digests (a Scorecard saved by an older harness)."""
    if not before or not after:
        return None
    changed = sorted(k for k in before.keys() & after.keys() if before[k] != after[k])
    added = sorted(after.keys() - before.keys())
    removed = sorted(before.keys() - after.keys())
    return [
        f"{len(ids)} Case(s) {title}: {_listed(ids)}"
        for title, ids in (("changed", changed), ("added", added), ("removed", removed))
        if ids
    ]


def _listed(ids: Sequence[str]) -> str:
    """The ids, each variant folded into its Case when that is listed too, the first
    :data:`LISTED` named and the rest counted."""
    present = set(ids)

    def source(case_id: str) -> str:
        parts = case_id.split("--")
        for n in range(1, len(parts)):  # the shortest listed prefix is the Case
            head = "--".join(parts[:n])
            if head in present:
                return head
        return case_id

    variants: dict[str, int] = {}
    shown: list[str] = []
    for case_id in ids:
        head = source(case_id)
        if head == case_id:
            shown.append(case_id)
        else:
            variants[head] = variants.get(head, 0) + 1
    named = [
        f"{case_id} (and {variants[case_id]} of its variants)" if case_id in variants else case_id
        for case_id in shown
    ]
    more = f" and {len(named) - LISTED} more" if len(named) > LISTED else ""
    return ", ".join(named[:LISTED]) + more


def plugin_changes(
    before: Sequence[Mapping[str, Any]],
    after: Sequence[Mapping[str, Any]],
    explain: bool = True,
) -> list[str]:
    """Why two corpusHashes differ, as far as the plug-ins both Scorecards used can say: per
    distribution its version or code, and each kind or field only one side used. With
    ``explain`` and no difference, one line saying what else may differ."""

    def by_distribution(rows: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
        return {str(r.get("distribution")): r for r in rows}

    def names(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        return {
            f"{'kind' if 'kind' in r else 'field'} {r.get('kind', r.get('field'))!r}": str(
                r.get("distribution")
            )
            for r in rows
        }

    lines: list[str] = []
    old, new = by_distribution(before), by_distribution(after)
    for dist in sorted(old.keys() & new.keys()):
        a, b = old[dist], new[dist]
        if a.get("version") != b.get("version"):
            lines.append(f"plug-in {dist}: version {a.get('version')} -> {b.get('version')}")
        elif a.get("code") != b.get("code"):
            lines.append(
                f"plug-in {dist} {b.get('version')}: its code changed without a version bump "
                f"(code {a.get('code') or 'not recorded'} -> {b.get('code') or 'not recorded'}): "
                "the measuring stick moved, not the system under test"
            )
    schemas = {(str(r.get("kind", r.get("field"))), str(r.get("schema"))) for r in before} ^ {
        (str(r.get("kind", r.get("field"))), str(r.get("schema"))) for r in after
    }
    for name in sorted({n for n, _ in schemas}):
        if any(name in (r.get("kind"), r.get("field")) for r in before) and any(
            name in (r.get("kind"), r.get("field")) for r in after
        ):
            lines.append(f"{name!r} changed its schema")
    one, two = names(before), names(after)
    for name in sorted(one.keys() - two.keys()):
        lines.append(f"{name} ({one[name]}) is used only by the first")
    for name in sorted(two.keys() - one.keys()):
        lines.append(f"{name} ({two[name]}) is used only by the second")
    if not lines and explain:
        lines.append(
            "the plug-ins both used are the same: the Cases, the Eval Soul, the platform Tools "
            "or the Judge differ"
        )
    return lines


def compare(before: Scorecard, after: Scorecard, baseline_version: str = "") -> Delta:
    check_comparable(before, after)
    old, new = before.verdicts(), after.verdicts()
    flapping = set(before.noise.flapping if before.noise else ()) | set(
        after.noise.flapping if after.noise else ()
    )
    cases = []
    for case_id in sorted(old.keys() | new.keys()):
        was, now = old.get(case_id, "-"), new.get(case_id, "-")
        state: State
        if was not in COMPARABLE or now not in COMPARABLE:
            state = "not-comparable"
        elif case_id in flapping:
            state = "no-signal"
        elif (was == "PASS") == (now == "PASS"):
            state = "unchanged"
        elif now == "PASS":
            state = "fixed"
        else:
            state = "regressed"
        cases.append(CaseDelta(case_id=case_id, state=state, before=was, after=now))
    return Delta(
        model_id=after.model_id,
        corpus_hash=after.corpus_hash,
        baseline_version=baseline_version,
        cases=cases,
        floor=before.noise is not None,
        passed_before=sum(v == "PASS" for v in old.values()),
        passed_after=sum(v == "PASS" for v in new.values()),
    )


def render(
    delta: Delta, baseline_dirty: bool = False, earlier: str = "the Baseline was promoted"
) -> str:
    """The delta for people, every value from a file kept within its row (:func:`one_line`: a
    Case id with a line break cannot forge a row). ``earlier`` says how the earlier side was
    made, for the note when it records no noise floor (``eval compare`` of two Scorecards: "the
    Scorecard A.json was swept")."""
    lines = [
        f"Delta  model={one_line(delta.model_id)}  corpus={one_line(delta.corpus_hash[:16])}"
        + (f"  baseline={one_line(delta.baseline_version)}" if delta.baseline_version else "")
    ]
    for state, title in (
        ("regressed", "REGRESSED"),
        ("fixed", "FIXED"),
        ("not-comparable", "NOT COMPARABLE"),
        ("no-signal", "NO SIGNAL"),
    ):
        rows = delta.of(state)  # type: ignore[arg-type]
        if rows:
            lines.append(title)
            lines.extend(
                f"  {one_line(c.case_id)}  {one_line(c.before)} -> {one_line(c.after)}"
                for c in rows
            )
    if not delta.floor:
        lines.append(
            f"NOTE  {earlier} without --repeat: it records no noise floor, so no delta here "
            "is damped"
        )
    lines.append(f"{delta.passed_before} passed before, {delta.passed_after} passed after")
    if baseline_dirty:
        lines.append("WARN  the Baseline was saved from a dirty tree")
    return "\n".join(lines) + "\n"
