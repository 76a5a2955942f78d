"""What a recorded script remembers of what the model was shown when it was recorded.

A script written by hand says what its author imagined a model would do; one recorded from a
real model (``eval record``) says what a model did, shown one prompt and one set of Tools. When
the runtime later shows the model something else (a prompt edited, a Tool's schema changed, a
message more in the history), the script still replays, but it answers a conversation that no
longer happens. So the recording keeps, beside the script, digests of what each request showed
(:class:`Shown`), and every replay on the scripted binding compares them with what it shows now:
a difference is drift, a NOTE on the Trial naming it (:mod:`eval_core._running.drift`).

Digests, not text: a Case file stays small and holds no copy of the runtime's prompt. The system
prompt is also kept as one short digest per line, so a drift note can name the lines that
changed (the replay holds their text). ``recorded`` is part of the Case, so of the corpusHash.
"""

from __future__ import annotations

from typing import Any

import msgspec

from eval_core._case.json_form import CASE_JSON


class Shown(msgspec.Struct, **CASE_JSON):
    """What one model request showed the model: the digest of its system prompt (and of each
    line of it, space-separated, to name a change), its message count and the Tools offered,
    each by the digest of its declaration (name, description, input schema)."""

    system: str
    messages: int
    lines: str = ""
    tools: dict[str, str] = msgspec.field(default_factory=dict)


class AnsweredCall(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """One Tool call a model asked for, as the binding received it."""

    call_id: str
    name: str
    arguments: Any = None


class Answer(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, rename="camel"):
    """What the model answered one request, as the binding received it (before the runtime
    did anything with it: a guard that replaced the answer does not change this): the script
    step a recording writes for that request."""

    text: str | None = None
    calls: list[AnsweredCall] = msgspec.field(default_factory=list)
    structured: Any = None


class RecordedRequest(msgspec.Struct, **CASE_JSON):
    """One request of a recording as the Case keeps it: the system prompt's digest (its lines
    are under :attr:`Recorded.systems`), the message count, the names of the Tools offered
    (their digests under :attr:`Recorded.tools`)."""

    system: str
    messages: int
    tools: list[str] = msgspec.field(default_factory=list)


class Recorded(  # CASE_JSON spelled out: mypy must see kw_only to allow ``date`` after a default
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    rename="camel",
):
    """The drift metadata of a recorded ``script``: who answered (``model``, its reported
    ``version``), through which ``host``, on which ``date`` (YYYY-MM-DD), and what each request
    showed. Written by ``eval record``; compared on every scripted replay."""

    model: str
    version: str | None = None
    host: str | None = None
    date: str
    tools: dict[str, str] = msgspec.field(default_factory=dict)
    systems: dict[str, str] = msgspec.field(default_factory=dict)
    requests: list[RecordedRequest]

    def shown(self) -> list[Shown]:
        """Each recorded request as a :class:`Shown`, its Tools' and lines' digests joined in."""
        return [
            Shown(
                system=r.system,
                lines=self.systems.get(r.system, ""),
                messages=r.messages,
                tools={name: self.tools.get(name, "") for name in r.tools},
            )
            for r in self.requests
        ]


def recorded_from(
    shown: list[Shown], model: str, date: str, version: str | None = None, host: str | None = None
) -> Recorded:
    """The metadata a recording keeps of the requests it observed (the inverse of
    :meth:`Recorded.shown`)."""
    tools: dict[str, str] = {}
    systems: dict[str, str] = {}
    for request in shown:
        tools.update(request.tools)
        systems.setdefault(request.system, request.lines)
    return Recorded(
        model=model,
        version=version,
        host=host,
        date=date,
        tools=dict(sorted(tools.items())),
        systems=systems,
        requests=[
            RecordedRequest(system=s.system, messages=s.messages, tools=sorted(s.tools))
            for s in shown
        ],
    )
