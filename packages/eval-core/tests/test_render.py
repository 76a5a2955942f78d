"""The text Scorecard labels what it shows: the tool loop's status is not the verdict."""

from __future__ import annotations

from msgspec.structs import replace

from eval_core._release.render import render_text, trial_line
from release_fixtures import scorecard, trial


def test_the_loop_status_is_labelled_apart_from_the_verdict() -> None:
    expected_to_fail = replace(trial("loop-fails", "passed"), loop_status="failed")
    assert trial_line(expected_to_fail) == "PASS  loop-fails#1  [loop failed]"
    text = render_text(scorecard([expected_to_fail, trial("bad", "failed")]), verbose=True)
    assert "PASS  loop-fails#1  [loop failed]\n" in text
    assert "FAIL  bad#1  [loop completed]\n" in text
    assert "  [failed]" not in text and "  [completed]" not in text
