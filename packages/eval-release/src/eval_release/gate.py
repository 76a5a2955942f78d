"""The gate of one leg: its Scorecard compared with the Baseline, then promoted if asked.

A comparison across Corpora or models is refused, never computed. Promotion happens only for a
complete, unerrored, unregressed Sweep of a real model from a clean tree, and always to the
canonical path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from eval_core.commands import CANONICAL, SweepLeg, SweepOptions, is_clean
from eval_core.records import Scorecard
from eval_release import baseline as baselines
from eval_release import delta as deltas


def gate(
    options: SweepOptions, run: SweepLeg, version: str, scrub: Callable[[bytes], bytes]
) -> None:
    """Compare with the Baseline, then promote if asked and allowed."""
    card = run.card
    assert card is not None
    regressed = 0
    if options.baseline is not None:
        try:
            path = (
                _canonical(options, card, run)
                if options.baseline == CANONICAL
                else Path(options.baseline)
            )
            base = baselines.read(path)
            delta = deltas.compare(base.scorecard, card, base.corpus_commit)
        except (baselines.BaselineError, deltas.ComparisonRefused) as exc:
            run.refused = True
            run.notes.append(f"REFUSED  no delta computed: {exc}")
            run.reasons.append(f"{run.name}: the Baseline comparison refused this Sweep")
        else:
            run.notes.append(deltas.render(delta, not is_clean(base.corpus_commit)).rstrip())
            run.states = {c.case_id: c.state for c in delta.cases}
            regressed = len(delta.of("regressed"))
            if regressed:
                run.reasons.append(
                    f"{run.name}: {regressed} Case(s) regressed against the Baseline"
                )
    if not options.promote:
        return
    why = _promotion_refused(options, card, version, run.refused, regressed)
    if why:
        run.notes.append(f"NOT PROMOTED  {run.name}: {why}")
        run.reasons.append(f"{run.name}: promotion refused: {why}")
        return
    try:
        target = _canonical(options, card)
    except baselines.BaselineError as exc:
        run.reasons.append(f"{run.name}: promotion refused: {exc}")
        return
    try:
        baselines.write(target, card, version, scrub)
    except OSError as exc:
        run.notes.append(f"NOT PROMOTED  {run.name}: {target} could not be written")
        run.write_failures.append(
            f"eval: the Baseline {target} could not be written: {exc.strerror or exc}"
        )
        return
    if card.noise is None:
        run.notes.append("NOTE  promoted without --repeat: this Baseline records no noise floor")
    run.notes.append(f"Promoted  {card.model_id} Baseline at {version} -> {target}")


def _canonical(options: SweepOptions, card: Scorecard, reading: SweepLeg | None = None) -> Path:
    """The Baseline's canonical path: keyed by the Corpus too unless it is the project's own.
    ``reading``: for a comparison, a Corpus keyed that has no Baseline there yet reads the
    unkeyed path (where a harness before the key promoted it), saying so in a note."""
    own = options.project.path("corpus") if options.project is not None else options.root / "corpus"
    key = baselines.corpus_key(options.corpus, own)
    path = baselines.canonical_in(options.baselines_dir, card.suite, card.model_id, key)
    if reading is not None and key is not None and not path.exists():
        before = baselines.canonical_in(options.baselines_dir, card.suite, card.model_id)
        if before.exists():
            reading.notes.append(
                f"NOTE  no Baseline at {path} (this Corpus's): compared with {before}, where "
                "an older harness promoted Baselines of every Corpus"
            )
            return before
    return path


def _promotion_refused(
    options: SweepOptions, card: Scorecard, version: str, refused: bool, regressed: int
) -> str | None:
    if card.binding == "scripted":
        return "the scripted binding is told what to say: it is never a Baseline"
    if card.unlocked:
        return "the plug-ins differ from eval.lock (--unlocked): a Baseline is made locked"
    if not is_clean(version):
        return f"the tree is not clean (the Corpus's, {version}): commit first"
    if card.partial:
        return "the Sweep is partial (a selection, aborted, or Trials never ran)"
    if card.errored:
        return f"{card.errored} Trial(s) errored"
    if refused:
        return "the Baseline comparison was refused"
    if regressed:
        return f"{regressed} Case(s) regressed against the Baseline"
    if card.noise is not None and len(card.noise.measured) < card.corpus_cases:
        return "the noise floor did not measure every Case"
    return None
