"""Witnesses: who saw what a Trial did, and the always-on check of testimony against them.

The runtime's own events and reports are its *testimony*. A regression can make testimony and
behaviour disagree (a denial recorded and the call run anyway), so every kind says which
*witness* it reads (:attr:`eval_core._case.kinds.KindSpec.witness`), and every Trial is checked,
whatever its Expectations ask: where the runtime's record contradicts a witness, the Trial
fails with a reason naming both sides. The core checks what every Host's Evidence holds (the
binding's requests and count, the Tool boundary); a family adds checks over its own records
through ``eval_witness_checks`` (an announced attachment never sent, a stale write that landed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from eval_core._case.declared import Declared
from eval_core._case.evidence import Evidence, ToolCall, record_key
from eval_core._case.wire_contract import malformed_requests
from eval_core._util.guard import fault
from eval_core._util.paths import deep_equal, quoted, render

if TYPE_CHECKING:
    from eval_core._util.guard import Origin

Witness = Literal["binding", "tool", "provider", "channel", "store", "answer", "host", "events"]
"""A witness's name, so that a type checker refuses a kind naming any other (the loader still
checks a plug-in's at run time: a plug-in is untrusted code)."""

WITNESSES: Mapping[Witness, str] = {
    "binding": "each model request as the binding put it on the wire, and its call count",
    "tool": "each call as the Tool itself received it",
    "provider": "an external provider's own log (an MCP server, a Routine's provider)",
    "channel": "what an integration channel or native channel was handed",
    "store": "rows read back from the database, the File store or the Soul repository",
    "answer": "what the Host returned to its caller: the answer and how the loop ended",
    "host": "what the Host adapter itself did to the runtime: the restarts, the workers killed",
    "events": "the runtime's own record (testimony): for kinds about the record itself",
}
"""Every witness a kind may name, and what it is. Only ``events`` is the runtime's word."""

TESTIMONY: Witness = "events"
WITNESSED = "testimony contradicts a witness"
"""How a contradiction of the runtime's record by a witness is named wherever it is shown."""

Check = Callable[[Evidence], Iterable[str]]


class WitnessCheck(Declared, frozen=True):
    """A family's check of the runtime's record against one of its witnesses.

    ``check`` returns one line per contradiction, naming both sides ("the runtime recorded
    ...; the provider received ..."); nothing when they agree or when either side was not
    observed (a missing record is for the kinds to fail, not for this check). Called on every
    Trial that ran, guarded like a scorer: one that raises errors the Trial.

    ``reads``: the family record the check compares a witness with (the type its fixture puts
    into the Evidence), for a check that says nothing without one: a Trial whose Evidence holds
    no record of that type is not asked (most Trials, for most families: every check's call
    saved on every Trial).
    """

    name: str
    check: Check
    reads: type | None = None
    origin: Origin | None = None  # not compared or shown


def _listed(calls: Sequence[ToolCall]) -> dict[str, ToolCall]:
    return {c.call_id: c for c in calls}


def denied_but_received(evidence: Evidence) -> Iterable[str]:
    """A call the runtime recorded as refused before its Tool, which the Tool received."""
    if evidence.tool_calls is None:
        return
    received = _listed(evidence.tool_calls)
    for denial in evidence.denials or ():
        if denial.source == "tool":  # the Tool itself refused it: it did receive it
            continue
        if denial.call_id in received:
            yield (
                f"the runtime recorded call {denial.call_id} of {quoted(denial.name)} as denied "
                f"by {denial.source}, but the Tool received it"
            )


def recorded_but_not_received(evidence: Evidence) -> Iterable[str]:
    """A call the runtime's events say it dispatched: the Tool must have received it, as
    recorded (the same Tool, the same arguments where the record shows them)."""
    said = evidence.testimony.tool_calls if evidence.testimony is not None else None
    if said is None or evidence.tool_calls is None:
        return
    received = _listed(evidence.tool_calls)
    for call in said:
        got = received.get(call.call_id)
        if got is None:
            yield (
                f"the runtime recorded dispatching call {call.call_id} of {quoted(call.name)}, "
                "but no Tool received it"
            )
        elif got.name != call.name:
            yield (
                f"the runtime recorded call {call.call_id} as {quoted(call.name)}, but "
                f"{quoted(got.name)} received it"
            )
        elif call.arguments is not None and not deep_equal(call.arguments, got.arguments):
            yield (
                f"the runtime recorded call {call.call_id} of {quoted(call.name)} with "
                f"{render(call.arguments, 80)}, but the Tool received {render(got.arguments, 80)}"
            )


def reported_prompt_not_sent(evidence: Evidence) -> Iterable[str]:
    """The prompt the runtime says it assembled is the one the binding sent."""
    said = evidence.testimony.system_prompt if evidence.testimony is not None else None
    requests = evidence.model_requests
    if said is None or not requests:
        return
    sent = requests[-1].system
    if said != sent:
        at = next((i for i, (a, b) in enumerate(zip(said, sent, strict=False)) if a != b), None)
        where = min(len(said), len(sent)) if at is None else at
        yield (
            f"the runtime reported a system prompt of {len(said)} chars, but the binding sent "
            f"{len(sent)} chars; they differ from offset {where}: reported "
            f"{render(said[where : where + 40])}, sent {render(sent[where : where + 40])}"
        )


def reported_calls_not_counted(evidence: Evidence) -> Iterable[str]:
    """The model calls the runtime reports are the requests the binding received."""
    said = evidence.testimony.model_calls if evidence.testimony is not None else None
    requests = evidence.model_requests
    if said is None or requests is None or said == len(requests):
        return
    yield (
        f"the runtime reported {said} model call(s), but the binding received "
        f"{len(requests)} request(s)"
    )


def reported_usage_not_handed(evidence: Evidence) -> Iterable[str]:
    """The tokens the runtime reports are those the binding's replies carried to it (cache and
    reasoning tokens are not compared). Its testimony's usage is held to it, zero included; a
    Host that testifies to none is asked only when its Evidence reports some."""
    testified = evidence.testimony.usage if evidence.testimony is not None else None
    said, handed = testified or evidence.usage, evidence.model_usage
    if handed is None or (testified is None and (said.input_tokens, said.output_tokens) == (0, 0)):
        return
    if (said.input_tokens, said.output_tokens) != (handed.input_tokens, handed.output_tokens):
        yield (
            f"the runtime reported {said.input_tokens} input and {said.output_tokens} output "
            f"tokens, but the binding's replies carried {handed.input_tokens} and "
            f"{handed.output_tokens}"
        )


def called_but_not_offered(evidence: Evidence) -> Iterable[str]:
    """A scripted call to a Tool the very request it answers did not offer: the agent stopped
    offering a Tool the Case means it to have (unless the script marks the call ``unoffered``,
    a hallucinated call on purpose). The binding is the witness of what was offered."""
    for number, request in enumerate(evidence.model_requests or (), start=1):
        for call in request.replied or ():
            if call.unoffered or call.name in request.tools:
                continue
            offered = ", ".join(quoted(t) for t in request.tools) or "no Tools"
            yield (
                f"the script calls {quoted(call.name)} (call {call.call_id}) in reply to model "
                f"request #{number}, but that request offered {offered}; a Tool the agent is "
                'not offered is called on purpose only when the call says "unoffered": true'
            )


CORE_CHECKS: tuple[WitnessCheck, ...] = (
    WitnessCheck("denied call received", denied_but_received),
    WitnessCheck("recorded call not received", recorded_but_not_received),
    WitnessCheck("reported prompt not sent", reported_prompt_not_sent),
    WitnessCheck("reported model calls not counted", reported_calls_not_counted),
    WitnessCheck("reported usage not handed", reported_usage_not_handed),
    WitnessCheck("scripted call not offered", called_but_not_offered),
    WitnessCheck("request no model API takes", malformed_requests),
)


def contradictions(evidence: Evidence, checks: Sequence[WitnessCheck] = ()) -> list[str]:
    """Every contradiction of the runtime's record by a witness, each ``<check>: <line>``.

    The core's checks run first, then ``checks`` (the installed families'); a family check
    that raises is a :class:`~eval_core._util.guard.PluginFault` naming it (the Trial errors).
    """
    found: list[str] = []
    records = evidence.records
    for check in (*CORE_CHECKS, *checks):
        if check.reads is not None and (not records or record_key(check.reads) not in records):
            continue  # no record of what it reads: it would say nothing
        try:  # guard.collect's guard, its label made only for a fault: this runs every Trial
            lines = check.check(evidence)
            said = list(lines) if lines else ()
        except Exception as exc:
            raise fault(
                check.origin, f"the witness check {check.name!r}", exc, check.check
            ) from exc
        if said:
            found.extend(f"{check.name}: {line}" for line in said)
    return found
