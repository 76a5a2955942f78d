"""The Matrix report in a real browser (Debian's Chromium, driven by Playwright), from file://:
it opens with no console error, its filters work, and a failed Case's transcript shows each
Expectation's reason beside the evidence it read. Screenshots are left as test artefacts (and
copied to ``$EVAL_REPORT_SCREENSHOTS`` when set, which is how ``docs/report-*.png`` are made).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from report_fixtures import CASES, WRONG, Matrix


@pytest.fixture
def page(browser: Any, matrix: Matrix) -> Iterator[tuple[Any, list[str]]]:
    """The report opened in a fresh page; every console error and page error is collected."""
    assert matrix.made.returncode == 0, matrix.made.stderr
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: errors.append(str(e)))
    opened.goto(matrix.report.as_uri())
    opened.wait_for_selector('body[data-loaded="true"]')  # the transcripts inflated
    yield opened, errors
    context.close()


def keep(page: Any, artefacts: Path, name: str, **options: Any) -> Path:
    path = artefacts / name
    page.screenshot(path=str(path), **options)
    assert path.stat().st_size > 0
    copy = os.environ.get("EVAL_REPORT_SCREENSHOTS")
    if copy:
        shutil.copy(path, Path(copy) / name)
    return path


def visible(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(".case:not([hidden]) .id", "rows => rows.map(r => r.textContent)")
    )


def test_the_report_opens_from_a_file_with_no_console_error(
    page: tuple[Any, list[str]], artefacts: Path
) -> None:
    opened, errors = page
    assert opened.inner_text("#gate").startswith("NOT CLEARED")
    assert "DISAGREEMENT" in opened.inner_text("#matrix")
    assert opened.locator("svg").count() == 3  # verdicts per family, durations, spend per Case
    keep(opened, artefacts, "report-matrix.png")
    assert errors == []


def test_the_filters_work(page: tuple[Any, list[str]]) -> None:
    opened, errors = page
    assert sorted(visible(opened)) == sorted(CASES)
    opened.select_option("#f-verdict", "FAIL")
    assert visible(opened) == [WRONG]
    assert opened.inner_text("#shown") == "1 of 3 Cases shown"
    opened.select_option("#f-verdict", "")
    opened.fill("#f-text", "not sure")  # a word of the failed Expectation's reason
    assert visible(opened) == [WRONG]
    opened.fill("#f-text", "triage")
    assert visible(opened) == ["triage-discovers-repository-before-search"]
    opened.fill("#f-text", "")
    opened.select_option("#f-tier", "l2")
    opened.select_option("#f-family", "eval-expectations-turn")
    assert sorted(visible(opened)) == sorted(CASES)
    assert errors == []


def test_a_failed_cases_transcript_shows_its_reason_beside_the_evidence(
    page: tuple[Any, list[str]], artefacts: Path
) -> None:
    opened, errors = page
    opened.click(f'[id="case-{WRONG}"]')
    detail = opened.locator(f'[id="case-{WRONG}"] + .case-detail')
    trials = detail.locator(".trial")
    trials.first.wait_for()
    assert trials.count() == 2  # good's Trial, then bad's
    failed = trials.nth(1)
    assert failed.locator("h3").inner_text().startswith("FAIL")
    reason = 'answer "I am not sure." does not contain "replacement shipped"'
    assert reason in failed.locator("ol.expectations").inner_text()
    answer = failed.locator(".item", has_text="what the model answered")
    assert "I am not sure." in answer.locator("pre.body").inner_text()
    assert reason in answer.locator("ul.read").inner_text()  # beside the evidence it read
    assert "I have two tickets open" in failed.locator(".message").first.inner_text()
    assert "System prompt (" in failed.inner_text()  # stored apart in the side file, laid out
    link = failed.locator("li.exp", has_text="model_prompt_contains").locator("a.where")
    link.click()
    failed.locator(".item.flash").wait_for()
    keep(opened, artefacts, "report-transcript.png")
    opened.click(f'[id="case-{WRONG}"]')  # closes again
    assert detail.is_hidden()
    assert errors == []


def test_a_report_of_saved_scorecards_alone_opens_every_case_and_says_why_no_transcript(
    browser: Any, matrix: Matrix
) -> None:
    from report_fixtures import eval_cli

    made = eval_cli(matrix.root, "report", *matrix.cards, "-o", "cards-only.html")
    assert made.returncode == 0, made.stderr
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: errors.append(str(e)))
    opened.goto((matrix.root / "cards-only.html").as_uri())
    opened.wait_for_selector('body[data-loaded="true"]')
    for case in CASES:
        opened.click(f'[id="case-{case}"]')
        detail = opened.locator(f'[id="case-{case}"] + .case-detail')
        assert "No transcript: this Trial was read from a Scorecard" in detail.inner_text()
    context.close()
    assert errors == []  # a note used to throw: its template's root is its own field
