"""What the rubric family asks the Judge, and the rules its reply must keep.

The prompt is fixed: numbered criteria, an anchored 1–5 scale, what the agent was given and
did, its answer. The reply must be a ``REASONING:`` line, then ``SCORE:`` last. Anything else is
:class:`~eval_core.kinds.JudgeError`: a Judge that breaks the rules never scores low. The prompt
lives with the kinds that use it, so changing it changes the family's version, which is in
corpusHash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import msgspec

from eval_core.kinds import Evidence, JudgeError

SCALE = """1 = does not meet the criteria at all
2 = meets a small part of the criteria; major gaps
3 = meets about half of the criteria; significant gaps
4 = meets the criteria with minor gaps
5 = fully meets every criterion"""

_TAG = r"^[\s*#_>`-]*(REASONING|SCORE)\s*[*_]*\s*:\s*[*_]*\s*(.*)$"  # compiled at first use


class Judgement(msgspec.Struct, frozen=True):
    """The Judge's score and why (a Struct: cheaper to create than a dataclass at import)."""

    score: int
    reasoning: str


def prompt(criteria: Sequence[str], evidence: Evidence, answer: str) -> str:
    """The fixed Judge prompt. Changing it changes what every rubric Case measures."""
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(criteria, start=1))
    calls = [
        f"- {c.name}({json.dumps(c.arguments, sort_keys=True, ensure_ascii=False)})"
        for c in evidence.tool_calls or ()
    ]
    return (
        "You are the Judge in an offline evaluation of an AI agent. Score the agent's final "
        "answer against the criteria below, using only the material shown.\n\n"
        f"CRITERIA\n{numbered}\n\n"
        f"SCALE (one integer)\n{SCALE}\n\n"
        "WHAT THE AGENT WAS GIVEN (system prompt)\n<<<\n"
        f"{evidence.system_prompt or '(not observed)'}\n>>>\n\n"
        "TOOL CALLS THE AGENT MADE\n"
        f"{chr(10).join(calls) if calls else '(none)'}\n\n"
        f"THE AGENT'S ANSWER\n<<<\n{answer}\n>>>\n\n"
        "Reply with exactly two lines, in this order and nothing after them:\n"
        "REASONING: <one or two sentences on how the answer meets each criterion>\n"
        "SCORE: <an integer from 1 to 5>"
    )


def parse(reply: str) -> Judgement:
    """A ``REASONING:`` line, then ``SCORE:`` as the last line, 1–5; else :class:`JudgeError`."""
    lines = [line for line in reply.strip().splitlines() if line.strip()]
    tags = [
        (i, m.group(1).upper(), m.group(2).strip())
        for i, line in enumerate(lines)
        if (m := re.match(_TAG, line, re.IGNORECASE))
    ]
    scores = [t for t in tags if t[1] == "SCORE"]
    reasons = [t for t in tags if t[1] == "REASONING"]
    if not scores:
        raise JudgeError(f"the Judge's reply has no SCORE: line: {_quote(reply)}")
    if not reasons:
        raise JudgeError(f"the Judge's reply has no REASONING: line: {_quote(reply)}")
    at, _, raw = scores[-1]
    if at != len(lines) - 1:
        raise JudgeError(f"SCORE: is not the last line of the Judge's reply: {_quote(reply)}")
    start = reasons[0][0]
    if any(i < start for i, _, _ in scores):
        raise JudgeError(f"the Judge scored before it reasoned: {_quote(reply)}")
    value = raw.strip().strip("*_`").strip()
    if not re.fullmatch(r"[+-]?\d+", value):
        raise JudgeError(f"the Judge's SCORE is not a whole number: {value!r}")
    score = int(value)
    if not 1 <= score <= 5:
        raise JudgeError(f"the Judge's SCORE {score} is outside 1–5")
    reasoning = " ".join([reasons[0][2], *(lines[i].strip() for i in range(start + 1, at))]).strip()
    if score in (1, 5) and not reasoning:
        raise JudgeError(f"the Judge gave the extreme score {score} with no reasoning")
    return Judgement(score=score, reasoning=reasoning)


def _quote(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return repr(flat[:limit] + ("…" if len(flat) > limit else ""))
