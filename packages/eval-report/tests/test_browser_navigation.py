"""The report navigated as a person would, in Chromium: each "see the evidence" link opens
exactly the place its Expectation's verdict names (a request, a Tool call, a guard decision,
the answer), ``#case-<id>`` opens its Case below the sticky filters, failures come first and
any heading sorts, the rows are reached and worked by keyboard, and at 1366 px nothing
overflows sideways nor breaks a Case id inside a word."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from eval_report.saved import read_any
from eval_report.transcripts import anchors, decode
from report_fixtures import CASES, WRONG, Matrix

GUARDED, TRIAGE = CASES[0], CASES[1]


@pytest.fixture
def open_page(browser: Any, matrix: Matrix) -> Iterator[Any]:
    """Open the report at an address (a fragment, a viewport); no console error allowed."""
    assert matrix.made.returncode == 0, matrix.made.stderr
    contexts: list[Any] = []
    errors: list[str] = []

    def opening(fragment: str = "", width: int = 1366, height: int = 900) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(matrix.report.as_uri() + fragment)
        page.wait_for_selector('body[data-loaded="true"]')
        return page

    yield opening
    for context in contexts:
        context.close()
    assert errors == []


def _row(page: Any, case: str) -> Any:
    return page.locator(f'[id="case-{case}"]')


def _trial(page: Any, case: str, nth: int) -> Any:
    """The ``nth`` Trial of an opened Case (0: model good's, 1: bad's)."""
    trials = page.locator(f'[id="case-{case}"] + .case-detail .trial')
    trials.first.wait_for()
    return trials.nth(nth)


def _link(trial: Any, kind: str) -> Any:
    return trial.locator("li.exp", has_text=kind).first.locator("a.where")


def _in_view(page: Any, selector: str) -> bool:
    return bool(
        page.eval_on_selector(
            selector,
            "el => { const r = el.getBoundingClientRect(); "
            "return r.bottom > 0 && r.top < innerHeight && r.height > 0; }",
        )
    )


def test_each_link_opens_exactly_the_evidence_its_verdict_names(open_page: Any) -> None:
    page = open_page()
    assert page.locator('a[href="#"]').count() == 0  # every link is real
    _row(page, WRONG).click()
    bad = _trial(page, WRONG, 1)
    row = _row(page, WRONG).get_attribute("data-i")
    requests = bad.locator('[id^="ev-"][id*="-request-"]').count()
    assert requests >= 1
    prompt = _link(bad, "model_prompt_contains")  # it scored the last request: that one
    target = f"ev-{row}-1-request-{requests}"
    assert prompt.get_attribute("href") == f"#{target}"
    assert prompt.inner_text() == f"see the evidence (request {requests})"
    prompt.click()
    assert page.evaluate("location.hash") == f"#{target}"
    opened = page.locator(f'[id="{target}"]')
    assert "flash" in (opened.get_attribute("class") or "")
    assert _in_view(page, f'[id="{target}"]')
    assert "replacement shipped" in opened.locator(":scope > ul.read").inner_text()
    answer = _link(bad, "output_contains")
    assert answer.get_attribute("href") == f"#ev-{row}-1-answer"
    assert "I am not sure." in page.locator(f'[id="ev-{row}-1-answer"]').inner_text()
    good = _trial(page, WRONG, 0)  # good called the Tool: its argument's link is that call
    sent = good.locator('[id^="ev-"][id*="-request-"]').count()
    assert sent >= 2  # a later request, not the first and not the answer
    assert _link(good, "model_prompt_contains").get_attribute("href") == (
        f"#ev-{row}-0-request-{sent}"
    )
    argument = _link(good, "tool_argument_equals")
    href = argument.get_attribute("href") or ""
    assert href.startswith(f"#ev-{row}-0-call-")
    argument.click()
    call = page.locator(f'[id="{href[1:]}"]')
    assert "T-1043" in call.inner_text() and _in_view(page, f'[id="{href[1:]}"]')
    # A guard decision in a folded list: the fold opens on the decision that blocked.
    _row(page, GUARDED).click()
    guarded = _trial(page, GUARDED, 0)
    guard = _link(guarded, "guardrail_blocked")
    href = guard.get_attribute("href") or ""
    assert "-guard-" in href and guard.inner_text().startswith("see the evidence (guard decision")
    guard.click()
    decision = page.locator(f'[id="{href[1:]}"]')
    assert "tool_blocklist" in decision.inner_text() and "blocked" in decision.inner_text()
    assert _in_view(page, f'[id="{href[1:]}"]')


def test_an_evidence_address_opens_its_case_and_its_place(open_page: Any, matrix: Matrix) -> None:
    first = open_page()
    _row(first, WRONG).click()
    href = _link(_trial(first, WRONG, 1), "model_prompt_contains").get_attribute("href")
    page = open_page(href, height=500)  # the address alone, in a new page
    assert _row(page, WRONG).get_attribute("aria-expanded") == "true"
    page.locator(f'[id="{href[1:]}"].flash').wait_for()
    assert _in_view(page, f'[id="{href[1:]}"]')


def test_every_place_of_a_transcript_has_its_anchor(open_page: Any, matrix: Matrix) -> None:
    saved = read_any(matrix.logs[1])  # bad's trial log, as the page was made from
    recorded = saved.transcripts()
    page = open_page()
    for case in CASES:
        _row(page, case).click()
        row = _row(page, case).get_attribute("data-i")
        _trial(page, case, 1)
        prefix = f"ev-{row}-1-"
        ids = page.eval_on_selector_all(
            f'[id="case-{case}"] + .case-detail .trial:nth-child(2) [id^="{prefix}"]',
            "els => els.map(e => e.id)",
        )
        assert saved.reader is not None  # the side file its prompt is read from
        evidence = decode(recorded[(case, 1)].raw, case, saved.reader.prompt).evidence
        assert [i.removeprefix(prefix) for i in ids] == anchors(evidence), case


def test_a_case_address_opens_it_below_the_sticky_filters(open_page: Any) -> None:
    last = CASES[1]  # sorted last: failures first, then by id
    page = open_page(f"#case-{last}", height=420)
    row = _row(page, last)
    page.locator(f'[id="case-{last}"] + .case-detail .trial').first.wait_for()
    assert row.get_attribute("aria-expanded") == "true"
    assert page.evaluate("scrollY") > 0  # it had to scroll to it
    bar = page.locator("#filters").bounding_box()
    box = row.bounding_box()
    assert bar is not None and box is not None
    assert box["y"] >= bar["y"] + bar["height"] - 1  # not hidden under the sticky bar
    assert box["y"] < 420
    page.click(f'#matrix a[href="#case-{WRONG}"]')  # the Matrix's links open a Case too
    assert _row(page, WRONG).get_attribute("aria-expanded") == "true"
    assert page.evaluate("location.hash") == f"#case-{WRONG}"
    page.go_back()  # a link is an entry of the history: Back returns to the address before
    assert page.evaluate("location.hash") == f"#case-{last}"


def _order(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".case .id a", "els => els.map(e => e.textContent)"))


def _tokens(page: Any) -> list[int]:
    return [
        int(t) for t in page.eval_on_selector_all(".case .tokens", "e => e.map(t => t.textContent)")
    ]


def test_failures_come_first_and_a_heading_sorts(open_page: Any) -> None:
    page = open_page()
    assert _order(page) == [WRONG, *sorted(c for c in CASES if c != WRONG)]
    _row(page, WRONG).click()  # an opened Case moves with its Trials
    page.click('#cases-head button[data-sort="tokens"]')
    assert _tokens(page) == sorted(_tokens(page))
    assert page.get_attribute('#cases-head [data-dir="asc"] button', "data-sort") == "tokens"
    page.click('#cases-head button[data-sort="tokens"]')
    assert _tokens(page) == sorted(_tokens(page), reverse=True)
    page.click('#cases-head button[data-sort="id"]')
    assert _order(page) == sorted(CASES)
    assert page.locator(f'[id="case-{WRONG}"] + .case-detail .trial').count() == 2
    page.click('#cases-head button[data-sort="v"][data-leg="1"]')  # bad's verdicts
    assert _order(page)[0] == WRONG
    assert "sorted by bad, ascending (failures first)" in page.inner_text("#sorted")


def test_the_rows_are_reached_and_worked_by_keyboard(open_page: Any) -> None:
    page = open_page()
    page.focus("#f-text")
    focused = ""
    for _ in range(12):  # past the sort headings to the rows: one stop
        page.keyboard.press("Tab")
        focused = page.evaluate("document.activeElement.id")
        if focused.startswith("case-"):
            break
    first, second = _order(page)[:2]
    assert focused == f"case-{first}"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.id") == f"case-{second}"
    page.keyboard.press("Enter")
    assert _row(page, second).get_attribute("aria-expanded") == "true"
    page.locator(f'[id="case-{second}"] + .case-detail .trial').first.wait_for()
    page.keyboard.press(" ")
    assert _row(page, second).get_attribute("aria-expanded") == "false"
    assert page.locator(f'[id="case-{second}"] + .case-detail').is_hidden()
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.id") == f"case-{_order(page)[-1]}"
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.id") == f"case-{first}"
    page.keyboard.press("ArrowUp")  # at the top it stays
    assert page.evaluate("document.activeElement.id") == f"case-{first}"
    page.keyboard.press("Shift+Tab")  # the rows are one stop: back to the headings
    assert page.evaluate("document.activeElement.tagName") == "BUTTON"


_BROKEN = """els => els.flatMap(a => {
  const text = a.firstChild, words = text.textContent.split("-"), broken = [];
  let start = 0;
  for (const word of words) {
    const range = document.createRange();
    range.setStart(text, start);
    range.setEnd(text, start + word.length);
    if (range.getClientRects().length > 1) broken.push(word);
    start += word.length + 1;
  }
  return broken;
})"""


@pytest.mark.parametrize("width", [1366, 1024])
def test_nothing_overflows_sideways_and_no_case_id_breaks_inside_a_word(
    open_page: Any, width: int
) -> None:
    page = open_page(width=width)
    _row(page, WRONG).click()
    _trial(page, WRONG, 1)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    hidden = page.eval_on_selector_all(
        ".scroll, #cases", "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length"
    )
    assert hidden == 0 or width < 1366  # at 1366 px no table is cut inside its scrolling box
    assert page.eval_on_selector_all(".case .id a", _BROKEN) == []
    lines = page.eval_on_selector_all(
        ".case .id a", "els => els.map(a => a.getClientRects().length)"
    )
    assert width > 1200 or max(lines) > 1  # at 1024 px an id does wrap: at its hyphens
