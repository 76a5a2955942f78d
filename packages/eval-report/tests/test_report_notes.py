"""A Trial's NOTE (a recorded script that drifted) reaches the report: the Sweep's count in
its summary row, the note itself with the Trial (the page's data), never as a verdict."""

from __future__ import annotations

from pathlib import Path

import msgspec

from card_fixtures import tallied
from eval_core.records import TrialResult
from eval_report.html import write_report

NOTE = "drift: request 1: the system prompt changed: 1 line(s) added ('Be brief.'), 0 removed"


def test_a_noted_trial_is_counted_in_the_summary_and_carries_its_note(tmp_path: Path) -> None:
    card = tallied(
        [
            TrialResult(case_id="old", trial=1, outcome="passed", notes=[NOTE]),
            TrialResult(case_id="new", trial=1, outcome="passed"),
        ],
        host="agent-runtime",
        started_at="2026-12-01T00:00:00+00:00",
    )
    assert (card.passed, card.noted) == (2, 1)  # a NOTE is counted, and changes no verdict
    saved = tmp_path / "card.json"
    saved.write_bytes(msgspec.json.encode(card))
    output = tmp_path / "report.html"
    write_report([saved], output, [])
    page = output.read_text()
    assert "NOTE: 1 Trial(s) carry a note" in page
    assert "the system prompt changed" in page  # the note, with its Trial
    assert 'data-f="noted"' in page
