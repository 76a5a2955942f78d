"""The Judge: a pinned third model that scores what ``==`` cannot, or errors the Trial.

It is reached through the OpenAI-compatible wire and configured by the environment
(``EVAL_JUDGE_BASE_URL``, ``EVAL_JUDGE_MODEL``, ``EVAL_JUDGE_API_KEY``); its identity is in
corpusHash. The prompt is fixed: numbered criteria, an anchored 1–5 scale, what the agent was
given and did, its answer. The reply must be a ``REASONING:`` line, then ``SCORE:`` last.
Anything else, and any vendor fault, is :class:`JudgeError`: a Judge failure never scores low.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import httpx

from eval_core.endpoint import plus, redact
from eval_core.evidence import Evidence, Usage
from eval_core.host import ModelCallRequest, ModelError
from eval_core.preflight import JudgeConfig, PreflightError
from eval_core.preflight import judge as judge_config
from eval_core.retry import with_retry
from eval_core.wire import openai
from eval_core.wire.transport import VendorError, post_json

SCALE = """1 = does not meet the criteria at all
2 = meets a small part of the criteria; major gaps
3 = meets about half of the criteria; significant gaps
4 = meets the criteria with minor gaps
5 = fully meets every criterion"""

_TAG = re.compile(r"^[\s*#_>`-]*(REASONING|SCORE)\s*[*_]*\s*:\s*[*_]*\s*(.*)$", re.IGNORECASE)
_MAX_OUTPUT = 512
_TIMEOUT = 120.0


class JudgeError(Exception):
    """The Judge could not be asked or did not answer by the rules: the Trial errors."""


@dataclass(frozen=True, slots=True)
class Judgement:
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
        if (m := _TAG.match(line))
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


class Judge:
    """A configured Judge. Its calls are tallied here (``usage``, ``calls``), not in a Trial."""

    def __init__(
        self, config: JudgeConfig, *, base_delay: float = 2.0, client: httpx.Client | None = None
    ) -> None:
        self.config = config
        self.base_delay = base_delay
        self.client = client or httpx.Client(trust_env=False)
        self.usage = Usage()
        self.calls = 0
        self._lock = threading.Lock()

    @property
    def identity(self) -> str:
        return f"{self.config.base_url}|{self.config.model}"

    def ask(self, text: str) -> str:
        """The Judge's raw reply to ``text``, or :class:`JudgeError` (never the key)."""
        request = ModelCallRequest(
            system="", messages=[{"role": "user", "content": text}], tools=[]
        )
        body = openai.encode(self.config.model, request, _MAX_OUTPUT)
        body["temperature"] = 0

        def attempt() -> str:
            with self._lock:
                self.calls += 1
            answer = post_json(
                self.client,
                openai.url(self.config.base_url),
                openai.headers(self.config.api_key),
                body,
                _TIMEOUT,
            )
            billed = openai.decode_usage(answer)
            with self._lock:
                self.usage = plus(self.usage, billed)
            reply = openai.decode(answer, self.config.model)
            if not reply.text:
                raise VendorError("model_malformed_response", "the Judge answered no text")
            return reply.text

        try:
            return with_retry(attempt, base_delay=self.base_delay)
        except ModelError as exc:
            raise JudgeError(
                f"the Judge failed: {exc.reason}: {redact(exc.message, self.config.api_key)}"
            ) from None

    def score(self, criteria: Sequence[str], evidence: Evidence, answer: str) -> Judgement:
        return parse(self.ask(prompt(criteria, evidence, answer)))


_installed: Judge | None = None
_lock = threading.Lock()


def install(judge: Judge | None) -> None:
    """Make ``judge`` the one the rubric kinds ask (the CLI does, after preflight)."""
    global _installed  # noqa: PLW0603 - scorers are pure functions of (expectation, evidence)
    with _lock:
        _installed = judge


def current() -> Judge:
    """The installed Judge, else one configured from the environment, else :class:`JudgeError`."""
    global _installed  # noqa: PLW0603
    with _lock:
        if _installed is not None:
            return _installed
        try:
            config = judge_config(())
        except PreflightError as exc:
            raise JudgeError(f"the Judge is misconfigured: {exc}") from None
        if config is None:
            raise JudgeError(
                "no Judge configured: a rubric Expectation needs EVAL_JUDGE_BASE_URL, "
                "EVAL_JUDGE_MODEL and EVAL_JUDGE_API_KEY"
            )
        _installed = Judge(config)
        return _installed
