"""Drift: what the runtime shows the model now, against what a recorded script was shown.

Every model request of a Trial passes through :class:`Shows`, which keeps what it showed the
model as digests (:class:`~eval_core._case.recorded.Shown`) on the binding's side of the wire,
whatever the binding: a real model's requests are recorded this way (``eval record``), a
scripted replay's are compared with the recording (:func:`drift`). A difference is a NOTE on
the Trial naming what changed; the verdict stands, since the script still played.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from eval_core._case.case import ToolDecl
from eval_core._case.evidence import Evidence
from eval_core._case.recorded import Answer, AnsweredCall, Recorded, Shown
from eval_core._plugins.host import ModelCallRequest, ModelReply, ModelSession
from eval_core._util.hashing import canonical

DIGEST = 16
"""Hex digits kept of a prompt's or a Tool declaration's SHA-256."""
LINE = 8
"""Hex digits kept of each line's SHA-256: enough to tell lines apart within one prompt."""
SHOWN_TEXT = 80
"""Characters of a changed line a note quotes."""


def _digest(data: bytes, size: int = DIGEST) -> str:
    return hashlib.sha256(data).hexdigest()[:size]


def tool_digest(name: str, description: str | None, input_schema: Any) -> str:
    """A Tool declaration's digest: what the model reads of it (name, description, schema)."""
    return _declaration(
        canonical({"name": name, "description": description, "schema": input_schema})
    )


@lru_cache(maxsize=1024)
def _declaration(declared: bytes) -> str:
    """The digest of a declaration's bytes: keyed by its content, each request's Tools are
    encoded as sent, and only the hash of a declaration seen before is remembered."""
    return _digest(declared)


@lru_cache(maxsize=256)
def _system(system: str) -> tuple[str, str]:
    """A system prompt's digest and its lines' (a Sweep's requests share a few prompts)."""
    lines = " ".join(_digest(line.encode(), LINE) for line in system.splitlines())
    return _digest(system.encode()), lines


def shown_of(request: ModelCallRequest) -> Shown:
    """What ``request`` shows the model, as digests."""
    system, lines = _system(request.system)
    return Shown(
        system=system,
        lines=lines,
        messages=len(request.messages),
        tools={t.name: tool_digest(t.name, t.description, t.input_schema) for t in request.tools},
    )


def answer_of(reply: ModelReply) -> Answer:
    """What the model answered, as the binding received it."""
    return Answer(
        text=reply.text,
        calls=[
            AnsweredCall(call_id=c.call_id, name=c.name, arguments=c.arguments)
            for c in reply.tool_calls
        ],
        structured=reply.structured,
    )


def _misshapen(request: object) -> str | None:
    """What is wrong with a model request the Host built, or ``None`` (a Struct is built
    unchecked: a prompt of ``None`` would otherwise fail deep inside the binding's record)."""
    if not isinstance(request, ModelCallRequest):
        return f"of type {type(request).__name__}, not ModelCallRequest"
    if not isinstance(request.system, str):
        return f"whose system prompt is {type(request.system).__name__}, not text"
    if not isinstance(request.messages, list) or not all(
        isinstance(m, dict) for m in request.messages
    ):
        return "whose messages are not a list of messages"
    if not isinstance(request.tools, list) or not all(
        isinstance(t, ToolDecl) for t in request.tools
    ):
        return "whose Tools are not a list of ToolDecl"
    return None


class Shows:
    """A model session that keeps, for each request answered, what it showed the model
    (``shown``) and what the model answered (``answers``); everything else is the session's
    own (read through)."""

    def __init__(self, inner: ModelSession) -> None:
        self.inner = inner
        self.shown: list[Shown] = []
        self.answers: list[Answer] = []

    def complete(self, request: ModelCallRequest) -> ModelReply:
        wrong = _misshapen(request)
        if wrong is not None:  # a Host's request is a plug-in's: its Trial errs, in one line
            raise TypeError(f"the Host handed the model a request {wrong}")
        reply = self.inner.complete(request)
        self.shown.append(shown_of(request))
        self.answers.append(answer_of(reply))
        return reply

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class ShowsTurns(Shows):
    """:class:`Shows` of a session that replays a script per Turn (``TurnScripted``)."""

    def begin_turn(self, steps: Any) -> None:
        self.inner.begin_turn(steps)  # type: ignore[attr-defined]


def watched(session: ModelSession) -> Shows:
    """``session`` with what it shows kept, keeping its ``begin_turn`` when it has one."""
    return ShowsTurns(session) if hasattr(session, "begin_turn") else Shows(session)


def drift(recorded: Recorded, evidence: Evidence) -> list[str]:
    """Every difference between what the recording was shown and what this replay showed,
    one NOTE each (requests that differ alike are named together); empty when none."""
    now = evidence.shown or []
    then = recorded.shown()
    found: dict[str, list[int]] = {}
    texts = [r.system for r in evidence.model_requests or []]
    for index, (was, is_) in enumerate(zip(then, now, strict=False)):
        text = texts[index] if index < len(texts) else ""
        for said in _request_drift(was, is_, text):
            found.setdefault(said, []).append(index + 1)
    notes = [f"drift: {_requests(numbers)}: {said}" for said, numbers in found.items()]
    if len(now) != len(then):
        notes.append(
            f"drift: the model was called {len(now)} time(s); the script was recorded from "
            f"{len(then)} request(s)"
        )
    return notes


def _requests(numbers: Sequence[int]) -> str:
    if len(numbers) == 1:
        return f"request {numbers[0]}"
    return "requests " + ", ".join(str(n) for n in numbers)


def _request_drift(was: Shown, now: Shown, system: str) -> list[str]:
    said: list[str] = []
    if was.system != now.system:
        said.append(_system_drift(was.lines, system))
    if was.messages != now.messages:
        said.append(f"{now.messages} message(s) now, {was.messages} when recorded")
    for name in sorted(set(now.tools) - set(was.tools)):
        said.append(f"Tool {name!r} is offered now, not when recorded")
    for name in sorted(set(was.tools) - set(now.tools)):
        said.append(f"Tool {name!r} was offered when recorded, not now")
    for name in sorted(set(was.tools) & set(now.tools)):
        if was.tools[name] != now.tools[name]:
            said.append(f"Tool {name!r}: its description or input schema changed")
    return said


def _system_drift(recorded_lines: str, system: str) -> str:
    """The system prompt changed: the lines added (quoted from this replay) and how many of
    the recorded ones are gone."""
    before = recorded_lines.split()
    lines = system.splitlines()
    now = [_digest(line.encode(), LINE) for line in lines]
    added = [line for line, digest in zip(lines, now, strict=True) if digest not in before]
    removed = sum(1 for digest in before if digest not in now)
    quoted = "; ".join(repr(_short(line)) for line in added[:2])
    more = f" and {len(added) - 2} more" if len(added) > 2 else ""
    head = "the system prompt changed"
    if added:
        return f"{head}: {len(added)} line(s) added ({quoted}{more}), {removed} removed"
    return f"{head}: {removed} recorded line(s) removed" if removed else f"{head} (lines moved)"


def _short(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= SHOWN_TEXT else line[: SHOWN_TEXT - 1] + "…"
