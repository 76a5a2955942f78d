"""Re-scoring a saved Sweep: its recorded Evidence, scored again by the installed plug-ins.

Typical use: before upgrading a plug-in in a release, see what the upgrade changes on last
night's Sweep, at no model cost and with no Host. Each Trial's transcript holds the Evidence
and the Expectations it was scored by; they are decoded with the installed kinds and record
types and decided by the same rule a running Trial is (:func:`eval_core.records.decide`).

The exit code is the re-scored Sweep's gate, as ``eval sweep``'s is: 0 when it clears (a
re-score that changed nothing in a cleared Sweep is 0), 1 when it does not, 2 refused.

Refused (exit 2, one line naming it) when the log records no transcripts, or when anything it
recorded was written by a schema the installed harness does not read the same way: the
transcript format, the Evidence struct, a kind's schema, a family record's type. A Trial that
never reached Evidence (a vendor failure before the first reply), or whose Evidence was capped
when recorded, keeps its verdict and is listed as not re-scored, with the reason.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
from msgspec import structs

from eval_core.records import (
    Evidence,
    Expectation,
    PluginError,
    PluginSet,
    Scorecard,
    Transcript,
    TrialResult,
    case_verdict,
    decide,
    kind_schema_hash,
    load_plugins,
    made_safe,
    noise_floor,
    not_cleared,
    one_line,
    transcript_schema_hash,
)
from eval_release.api import render_verdict
from eval_report.saved import Refused, Saved, read_log
from eval_report.transcripts import READS, RecordTypes, TranscriptRefused, record_types, typed

_LABEL = {"passed": "PASS", "failed": "FAIL", "errored": "ERR", "unexercised": "UNEX"}


@dataclass(slots=True)
class Rescored:
    """What re-scoring changed, Trial by Trial."""

    saved: Saved
    trials: list[TrialResult]  # as re-scored (or as recorded, when not re-scored)
    changed: list[tuple[TrialResult, TrialResult]] = field(default_factory=list)
    reworded: int = 0
    skipped: list[tuple[TrialResult, str]] = field(default_factory=list)
    upgrades: list[str] = field(default_factory=list)

    def card(self) -> Scorecard:
        """The saved Sweep's Scorecard with its Trials as re-scored (counts and noise floor
        recomputed), so it is gated by the rule the Sweep was."""
        card = structs.replace(self.saved.card, trials=list(self.trials))
        card.tally()
        card.noise = noise_floor(card.trials)
        return card

    def reasons(self) -> list[str]:
        """Why the re-scored Sweep does not clear (:func:`~eval_core.records.not_cleared`);
        empty when it clears. A plug-in's section of the Sweep (a red-team LEAKED) needs its
        Corpus, which a log does not hold, so it is not computed again."""
        return not_cleared(self.card())


def rescore(path: Path, plugins: PluginSet | None = None) -> Rescored:
    """Re-score the trial log at ``path`` with ``plugins`` (default: the installed set)."""
    if not path.exists() or path.is_dir():
        raise Refused(f"{path}: no trial log there")
    saved = read_log(path)
    header = saved.log.header if saved.log is not None else None
    if header is None or header.transcripts is None or saved.reader is None:
        raise Refused(
            f"{path}: the log records no transcripts (a harness before transcripts wrote it): "
            "there is no Evidence to re-score"
        )
    if header.transcripts not in READS:
        raise Refused(
            f"{path}: transcript format {header.transcripts}: this harness reads formats "
            f"{', '.join(map(str, sorted(READS)))}: recorded by an incompatible "
            "record schema"
        )
    installed = transcript_schema_hash(Evidence)
    if header.evidence_schema != installed:
        raise Refused(
            f"{path}: the Evidence was recorded by an incompatible record schema "
            f"(Evidence {header.evidence_schema}; this harness has {installed})"
        )
    if plugins is None:
        try:
            plugins = load_plugins()
        except PluginError as exc:
            raise Refused(f"plug-ins refused: {exc}") from None
    upgrades = _check_kinds(path, header.plugins or [], plugins)
    types = record_types(_packages(plugins))
    typed: dict[str, tuple[Evidence, list[Expectation]]] = {}
    assert saved.log is not None and saved.log.pointers is not None
    result = Rescored(saved=saved, trials=[], upgrades=upgrades)
    for recorded, pointer in zip(saved.log.trials, saved.log.pointers, strict=True):
        if pointer is None:
            why = (
                f"it errored before any Evidence: {recorded.error}"
                if recorded.outcome == "errored"
                else "no transcript was recorded for it"
            )
            result.skipped.append((recorded, why))
            result.trials.append(recorded)
            continue
        known = typed.get(pointer.sha256)
        if known is None:
            try:
                stored = saved.reader.get(pointer)
            except TranscriptRefused as exc:
                raise Refused(str(exc)) from None
            if stored.capped:
                where = ", ".join(c.path for c in stored.capped)
                result.skipped.append(
                    (recorded, f"its Evidence was capped when recorded ({where})")
                )
                result.trials.append(recorded)
                continue
            known = _typed(path, stored, types, plugins)
            typed[pointer.sha256] = known
        evidence, expect = known
        again = made_safe(decide(recorded, evidence, expect, plugins.kinds, plugins.witness_checks))
        result.trials.append(again)
        flipped = again.outcome != recorded.outcome or [e.passed for e in again.expectations] != [
            e.passed for e in recorded.expectations
        ]
        if flipped:
            result.changed.append((recorded, again))
        elif [e.detail for e in again.expectations] != [e.detail for e in recorded.expectations]:
            result.reworded += 1
    return result


def _packages(plugins: PluginSet) -> set[str]:
    return {
        plugin.__name__.split(".")[0]
        for plugin in plugins.manager.get_plugins()
        if isinstance(plugin, ModuleType)
    }


def _check_kinds(path: Path, rows: list[dict[str, Any]], plugins: PluginSet) -> list[str]:
    """Refuse a kind that is gone or whose schema changed; name each upgraded plug-in (a new
    version, or the same version with other code: a scorer edited without a version bump)."""
    upgrades: dict[str, str] = {}
    for row in rows:
        kind = row.get("kind")
        if not isinstance(kind, str):
            continue
        spec = plugins.kinds.get(kind)
        recorded = f"{row.get('distribution')} {row.get('version')}"
        if spec is None:
            raise Refused(
                f"{path}: kind {kind!r} ({recorded}) is not installed: the plug-in that scored "
                "it is missing"
            )
        owner = plugins.kind_owner[kind]
        if row.get("schema") != kind_schema_hash(spec):
            raise Refused(
                f"{path}: kind {kind!r} was recorded by an incompatible schema "
                f"({recorded}, schema {row.get('schema')}; installed {owner.distribution} "
                f"{owner.version}, schema {kind_schema_hash(spec)})"
            )
        now = f"{owner.distribution} {owner.version}"
        if now != recorded:
            upgrades[recorded] = now
        elif row.get("code") and row.get("code") != owner.code:  # edited, version not bumped
            upgrades[f"{recorded} (code {row.get('code')})"] = f"{now} (code {owner.code})"
    return [f"{before} -> {after}" for before, after in sorted(upgrades.items())]


def _typed(
    path: Path, stored: Transcript, types: RecordTypes, plugins: PluginSet
) -> tuple[Evidence, list[Expectation]]:
    expect: list[Expectation] = []
    for index, raw in enumerate(stored.expect):
        name = raw.get("kind") if isinstance(raw, dict) else None
        spec = plugins.kinds.get(name) if isinstance(name, str) else None
        if spec is None:
            raise Refused(f"{path}: a recorded Expectation of kind {name!r} is not installed")
        try:
            expect.append(msgspec.convert(raw, spec.struct))
        except msgspec.ValidationError as exc:
            raise Refused(
                f"{path}: expect[{index}] of kind {name!r} does not decode with the installed "
                f"schema (recorded by an incompatible record schema): {exc}"
            ) from None
    try:
        evidence = typed(stored, types)
    except TranscriptRefused as exc:
        raise Refused(f"{path}: {exc}") from None
    return evidence, expect


def render(result: Rescored, path: Path) -> str:
    """What changed and why, for people: Cases whose verdict flipped, then every Trial."""
    card = result.saved.card
    lines = [
        f"Rescore  {path}  model={one_line(card.model_id)}  "
        f"corpus={one_line(card.corpus_hash[:16])}  "
        f"{len(card.trials)} Trials, scored again by the installed plug-ins (no model, no Host)"
    ]
    lines.extend(f"  plug-in  {one_line(upgrade)}" for upgrade in result.upgrades)
    before: dict[str, list[TrialResult]] = defaultdict(list)
    after: dict[str, list[TrialResult]] = defaultdict(list)
    for trial in card.trials:
        before[trial.case_id].append(trial)
    for trial in result.trials:
        after[trial.case_id].append(trial)
    flipped = [
        (case, case_verdict(before[case]), case_verdict(after[case]))
        for case in before
        if case_verdict(before[case]) != case_verdict(after[case])
    ]
    if flipped:
        lines.append(f"CHANGED  {len(flipped)} Case verdict(s)")
        lines.extend(f"  {one_line(case)}  {was} -> {now}" for case, was, now in flipped)
    if result.changed:
        lines.append(f"TRIALS  {len(result.changed)} Trial(s) scored differently")
        for old, new in result.changed:
            lines.append(
                f"  {one_line(old.case_id)}#{old.trial}  "
                f"{_LABEL[old.outcome]} -> {_LABEL[new.outcome]}"
            )
            lines.extend(_why(old, new))
    if result.skipped:
        lines.append(f"NOT RE-SCORED  {len(result.skipped)} Trial(s) keep their verdict")
        lines.extend(
            f"  {one_line(t.case_id)}#{t.trial}  {one_line(why)}" for t, why in result.skipped
        )
    unchanged = len(card.trials) - len(result.changed) - len(result.skipped)
    tail = f"{unchanged} Trial(s) unchanged"
    if result.reworded:
        tail += f" ({result.reworded} with a reworded reason)"
    lines.append(tail)
    return "\n".join(lines) + "\n" + render_verdict(result.reasons())


def _why(old: TrialResult, new: TrialResult) -> list[str]:
    """Each Expectation whose verdict changed, with both reasons; or the Trial's own reason."""
    lines: list[str] = []
    for index, now in enumerate(new.expectations):
        was = old.expectations[index] if index < len(old.expectations) else None
        if was is not None and was.passed == now.passed:
            continue
        verdict = "pass" if now.passed else "fail"
        lines.append(f"     - {one_line(now.kind)}: now {verdict}: {one_line(str(now.detail))}")
        if was is not None:
            lines.append(
                f"       was {'pass' if was.passed else 'fail'}: {one_line(str(was.detail))}"
            )
    if new.error and new.error != old.error:
        lines.append(f"     error: {one_line(new.error)}")
    if new.unexercised != old.unexercised:
        lines.append(f"     unexercised: {one_line(new.unexercised or 'no longer')}")
    return lines
