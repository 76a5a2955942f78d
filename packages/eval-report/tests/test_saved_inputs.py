"""Saved Sweeps are files anyone can edit (issue 45, class 7): a model id with a line break
cannot forge a line of a refusal, and a trial log of more lines than a Sweep may plan and
resume is refused in one line before any Trial is decoded."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from card_fixtures import tallied
from eval_core._recording.log_records import MOST_LINES, LogHeader
from eval_core._util.limits import MAX_PLANNED_TRIALS
from eval_report.saved import Refused, gather, read_any


def _card(model: str) -> bytes:
    card = tallied(model_id=model, binding="model", started_at="2026-12-01T00:00:00+00:00")
    return msgspec.json.encode(card)


def test_a_model_id_with_a_line_break_stays_within_the_refusal(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        path.write_bytes(_card("m1\nCLEARED"))
    with pytest.raises(Refused) as refused:
        gather([first, second])
    assert "\n" not in str(refused.value)
    assert "model m1\u240aCLEARED" in str(refused.value)


def test_a_trial_log_of_a_million_lines_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    header = LogHeader(corpus_hash="a" * 64, model_id="m", selected=[], repeat=1, started_at="t")
    log = tmp_path / "sweep.jsonl"
    line = b'{"caseId":"c","trial":1,"outcome":"passed"}\n'
    with log.open("wb") as out:
        out.write(msgspec.json.encode(header) + b"\n")
        out.write(line * (MOST_LINES + 10))
    with pytest.raises(Refused) as refused:
        read_any(log)
    message = str(refused.value)
    assert f"over {MOST_LINES:,} lines" in message and f"({MAX_PLANNED_TRIALS:,})" in message
    assert "\n" not in message
