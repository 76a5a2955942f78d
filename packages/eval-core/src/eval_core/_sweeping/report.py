"""What a Sweep prints: the Scorecard(s) on stdout, notes on stderr (JSON) or under them (text),
and the verdict, CLEARED or NOT CLEARED with every reason; the exit code that goes with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from eval_core._loading.opening import COMPARISON_REFUSED, Opened
from eval_core._running.scorecard import encode_json, not_cleared
from eval_core._sweeping.leg import Run
from eval_core._sweeping.matrix import Leg, not_cleared_matrix
from eval_core._sweeping.options import SweepOptions
from eval_core._sweeping.render import render_text, render_verdict
from eval_core._util.redaction import Redactor
from eval_core._util.safe_text import clean


def report_sweep(
    options: SweepOptions,
    opened: Opened | None,
    runs: Sequence[Run],
    redactor: Redactor,
    out: TextIO,
    err: TextIO,
) -> int:
    """The Scorecard(s) on stdout, notes on stderr; every byte through the redactor, and text
    for people through :func:`~eval_core._util.safe_text.clean` (no control character reaches a
    terminal)."""
    legs = [Leg(r.name, r.card, r.unavailable) for r in runs]
    matrix_sections = []
    if len(runs) > 1:
        reasons = not_cleared_matrix(legs)
        if opened is not None:
            measured = [r.card for r in runs if r.card is not None and r.unavailable is None]
            matrix_sections = opened.plugins.matrix_sections(measured)
            reasons.extend(r for section in matrix_sections for r in section.reasons)
    else:
        reasons = not_cleared(runs[0].card) if runs[0].card is not None else []
    for run in runs:
        reasons.extend(run.reasons)
    notes = [note for run in runs for note in run.notes]
    if options.output_format == "json":
        cards = [encode_json(r.card) for r in runs if r.card is not None]
        body = (
            cards[0]
            if len(runs) == 1
            else b"[\n" + b",\n".join(c.rstrip() for c in cards) + b"\n]\n"
        )
        out.write(redactor.scrub_bytes(body).decode())
        err.write(clean(redactor.scrub_text("".join(n + "\n" for n in notes))))
        err.write(clean(render_verdict(reasons)))
    else:
        parts: list[str] = []
        if len(runs) > 1 and opened is not None:
            from eval_core._sweeping.matrix import render as render_matrix

            case_ids = [
                c.id for c in opened.corpus.cases if not options.cases or c.id in options.cases
            ]
            total_ms = sum(r.card.duration_ms for r in runs if r.card is not None)
            parts.append(render_matrix(legs, case_ids, opened.corpus.hash, total_ms))
            parts.extend(line + "\n" for section in matrix_sections for line in section.lines)
        for run in runs:
            if run.card is not None:
                parts.append(render_text(run.card, options.verbose))
        parts.extend(note + "\n" for note in notes)
        parts.append(render_verdict(reasons))
        out.write(clean(redactor.scrub_text("".join(parts))))
    out.flush()
    if any(r.refused for r in runs):
        return COMPARISON_REFUSED
    return 1 if reasons else 0
