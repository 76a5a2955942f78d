"""The Judge port: a pinned third model that a family asks what ``==`` cannot score.

A model source (:mod:`eval_core._plugins.model_source`) makes the Judge; the release gate installs
it
for one Sweep and removes it after, reporting its calls on stderr (never in the Scorecard's
Spend). A family's scorer asks :func:`current` and owns what it asks (the rubric family's prompt
and reply rules), so the Judge's meaning is versioned with the kinds that use it. Scorers stay
functions of ``(expectation, evidence)``: the Judge is the one piece of Sweep state they reach.
"""

from __future__ import annotations

import threading
from typing import Protocol

from eval_core._case.evidence import Usage


class JudgeError(Exception):
    """The Judge could not be asked, or did not answer: the Trial errors, never scores low."""


class Judge(Protocol):
    """A configured Judge; its calls are tallied on it, not on a Trial. A Judge that holds a
    credential also says so as ``secrets`` (a sequence of strings, optional): the Sweep's
    redactor then keeps them out of every output, as it does each model leg's key."""

    @property
    def identity(self) -> str:
        """``<base URL>|<model>``: what corpusHash records of the Judge."""
        ...

    @property
    def calls(self) -> int: ...

    @property
    def usage(self) -> Usage: ...

    def ask(self, prompt: str) -> str:
        """The Judge's raw reply to ``prompt``, or :class:`JudgeError` (never its key)."""
        ...

    def close(self) -> None:
        """Release its connection, after the Sweep."""
        ...


_installed: Judge | None = None
_lock = threading.Lock()


def install(judge: Judge | None) -> None:
    """Make ``judge`` the one scorers ask (``None`` removes it)."""
    global _installed  # noqa: PLW0603 - scorers are pure functions of (expectation, evidence)
    with _lock:
        _installed = judge


def current() -> Judge:
    """The installed Judge, or :class:`JudgeError` saying why there is none."""
    with _lock:
        judge = _installed
    if judge is None:
        raise JudgeError(
            "no Judge configured: a rubric Expectation needs EVAL_JUDGE_BASE_URL, "
            "EVAL_JUDGE_MODEL and EVAL_JUDGE_API_KEY, and a model source (eval-bindings) "
            "installed to reach it"
        )
    return judge


def report(judge: Judge) -> str:
    """The stderr line that accounts for the Judge's calls after a Sweep."""
    return (
        f"Judge  {judge.identity}  {judge.calls} calls  {judge.usage.input_tokens} in"
        f"  {judge.usage.output_tokens} out  (not in the Scorecard's Spend)"
    )
