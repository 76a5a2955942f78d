"""The output family: what the model finally answered.

The final answer is ``evidence.output_text``; a structured answer is its compact JSON. An
answer that ended in tool calls, or with nothing, has no text: every output kind fails on it,
``output_omits`` included (absence of an answer is not evidence of omission), except
``output_absent``, which says there must be none: a Turn that failed or stopped before the
model answered, where a Host reporting some other Message as the answer is the regression.
Text compares case-insensitively; a failure quotes what the model said.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from eval_core.kinds import (
    NON_EMPTY,
    PATH,
    REASON,
    TEXT,
    Evidence,
    Expectation,
    Grounding,
    KindSpec,
    Location,
    Problems,
    Verdict,
    absent,
    compact_json,
    deep_equal,
    extract_json,
    failed,
    hookimpl,
    need,
    optional_reason,
    passed,
    properties,
    quote,
    quoted,
    render,
    resolve,
    rules,
    scorer,
)


class _Text(Expectation, frozen=True):
    text: str
    ungrounded: str | None = None


class OutputContains(_Text, tag="output_contains", frozen=True): ...


class OutputOmits(_Text, tag="output_omits", frozen=True): ...


class OutputMatches(Expectation, tag="output_matches", frozen=True):
    pattern: str
    ungrounded: str | None = None


class OutputAbsent(Expectation, tag="output_absent", frozen=True):
    """The Trial ended without a final answer."""


class OutputFieldEquals(Expectation, tag="output_field_equals", frozen=True):
    path: str
    value: Any


def answer_text(ev: Evidence) -> tuple[str | None, str]:
    """The final answer as text, or ``None`` and why there is none."""
    kind = ev.output_kind
    if kind == "structured":
        encoded = compact_json(ev.output_structured)
        if encoded is None:
            return (None, "the structured answer could not be encoded as JSON")
        return (encoded, "")
    if kind == "tool_calls":
        return (None, "the model ended with tool calls, not a final answer")
    if kind == "none":
        return (None, "the model gave no final answer")
    if not isinstance(ev.output_text, str):
        return (None, "final answer not observed")
    return (ev.output_text, "")


def _answer(ev: Evidence, cannot: Callable[[], str]) -> str:
    """The final answer, or the scorer fails: why there is none, and what it ``cannot`` do
    (said only then: every Trial's every output Expectation reads the answer)."""
    text, why = answer_text(ev)
    return text if text is not None else need(None, f"{why}; {cannot()}")


def _holds(answer: str, text: str) -> str | None:
    """That the answer holds the text (case-insensitive), or ``None``."""
    if text.casefold() in answer.casefold():
        return f"answer {quoted(answer)} contains {quoted(text)}"
    return None


@scorer
def _score_contains(e: OutputContains, ev: Evidence) -> Verdict:
    text = _answer(ev, lambda: f"cannot look for {quoted(e.text)}")
    found = _holds(text, e.text)
    if found is not None:
        return passed(found)
    return failed(f"answer {quoted(text)} does not contain {quoted(e.text)}")


@scorer
def _score_omits(e: OutputOmits, ev: Evidence) -> Verdict:
    text = _answer(ev, lambda: f"cannot confirm it omits {quoted(e.text)}")
    return absent(_holds(text, e.text), f"answer {quoted(text)} omits {quoted(e.text)}")


@scorer
def _score_matches(e: OutputMatches, ev: Evidence) -> Verdict:
    text = _answer(ev, lambda: f"cannot match /{quote(e.pattern)}/i")
    if not e.pattern:
        return failed(f"an empty pattern matches nothing meaningful; answer {quoted(text)}")
    try:
        match = re.search(e.pattern, text, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError) as exc:
        return failed(
            f"pattern /{quote(e.pattern)}/i does not compile ({exc}); answer {quoted(text)}"
        )
    if match is None:
        return failed(f"answer {quoted(text)} does not match /{quote(e.pattern)}/i")
    return passed(
        f"answer {quoted(text)} matches /{quote(e.pattern)}/i at {quoted(match.group(0))}"
    )


@scorer
def _score_field_equals(e: OutputFieldEquals, ev: Evidence) -> Verdict:
    text = _answer(ev, lambda: f"cannot read {e.path}")
    ok, document = extract_json(text)
    if not ok:
        return failed(f"answer {quoted(text)} holds no parsable JSON; cannot read {e.path}")
    found, actual = resolve(document, e.path)
    if not found:
        return failed(
            f"{e.path} is missing from the answer's JSON {render(document)}; answer {quoted(text)}"
        )
    if deep_equal(actual, e.value):
        return passed(f"answer's JSON has {e.path} = {render(actual)}")
    return failed(
        f"answer's JSON has {e.path} = {render(actual)}, expected {render(e.value)}; "
        f"answer {quoted(text)}"
    )


@scorer
def _score_absent(_e: OutputAbsent, ev: Evidence) -> Verdict:
    text, why = answer_text(ev)
    if text is not None:
        return failed(f"the Trial answered {quoted(text)}")
    if ev.output_kind in ("none", "tool_calls"):  # what the Host returned says there is none
        return passed(why)
    return failed(f"{why}; cannot confirm there is no answer")


def _check_pattern(e: OutputMatches, _case: object) -> Problems:
    problems = optional_reason(e.ungrounded)
    if not e.pattern:
        return [(".pattern", "must be a non-empty regular expression"), *problems]
    try:
        re.compile(e.pattern, re.IGNORECASE)
    except (re.error, RecursionError, OverflowError) as exc:
        return [(".pattern", f"does not compile as a regular expression: {exc}"), *problems]
    return problems


@hookimpl
def eval_kinds() -> list[KindSpec]:
    answer = partial(
        KindSpec, witness="answer", evidence_at=Location.ANSWER, text_compare="casefold"
    )
    text = partial(answer, **rules(text=TEXT, ungrounded=REASON), grounding=Grounding(field="text"))
    return [
        text(
            struct=OutputContains,
            scorer=_score_contains,
            description="The final answer contains the text (case-insensitive).",
            examples=[{"kind": "output_contains", "text": "512"}],
        ),
        text(
            struct=OutputOmits,
            scorer=_score_omits,
            description="There is a final answer, without the text (case-insensitive).",
            examples=[{"kind": "output_omits", "text": "Lisse"}],
        ),
        answer(
            struct=OutputMatches,
            scorer=_score_matches,
            check=_check_pattern,
            json_schema=properties(pattern={"minLength": 1}, ungrounded=NON_EMPTY),
            grounding=Grounding(field="pattern", regex=True),
            description="The final answer matches the regular expression (re.search, IGNORECASE).",
            examples=[{"kind": "output_matches", "pattern": "\\bT-\\d{4}\\b"}],
        ),
        answer(
            struct=OutputFieldEquals,
            scorer=_score_field_equals,
            **rules(path=PATH),
            text_compare="exact",
            description=(
                "The JSON in the final answer (first parsable fence, whole text, or balanced "
                "{…}/[…]) has the value at the dot path (deep equality, 1 == 1.0, true != 1)."
            ),
            examples=[{"kind": "output_field_equals", "path": "amount", "value": 24.5}],
        ),
        answer(
            struct=OutputAbsent,
            scorer=_score_absent,
            text_compare="exact",  # no text to compare
            description=(
                "The Trial ended with no final answer (the loop failed or stopped before the "
                "model answered); any answer, even an empty one, fails, and so does an answer "
                "that was not observed."
            ),
            examples=[{"kind": "output_absent"}],
        ),
    ]
