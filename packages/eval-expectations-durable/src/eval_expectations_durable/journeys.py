"""Journeys (L3): further Turns on the same conversation, and the Turn count they give a Case.

``journey`` lists the Turns after the first, each with its own input and, optionally, its own
scripted Tool results and script. The Host runs each as a new Run on the same conversation,
re-reading the Soul and the history from storage in between. What a journey Turn tells the
model is given text for the grounding rule, like the first Turn's input.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import msgspec

from eval_core.kinds import (
    BLOCK,
    L3,
    CaseBase,
    CaseField,
    FixtureRequest,
    LoadContext,
    Message,
    ScriptedResult,
    ScriptStep,
    TextPart,
    ToolCallsStep,
    ToolRef,
    TrialFixture,
    did_you_mean,
    hookimpl,
    own_cases,
    strings,
)


class JourneyTurn(msgspec.Struct, **BLOCK):
    """One further Turn: what the user says, and (scripted binding) what Tools and model do."""

    input: list[Message]
    tool_results: list[ScriptedResult] = msgspec.field(default_factory=list)
    script: list[ScriptStep] | None = None


class Turns(Protocol):
    """Further Turns on the Trial's conversation, each run by the Host after the first."""

    def then(
        self,
        input: Sequence[Message],
        tool_results: Sequence[ScriptedResult],
        script: Sequence[ScriptStep] | None,
    ) -> None: ...


def _journey(request: FixtureRequest) -> Iterator[None]:
    turns = request.service(Turns)
    for turn in request.value:
        turns.then(turn.input, turn.tool_results, turn.script)
    yield


@hookimpl
def eval_fixtures() -> list[TrialFixture]:
    return [TrialFixture(name="journey", field="journey", run=_journey, needs=(Turns,))]


def _given(turns: Any) -> Iterator[str]:
    for turn in turns or ():
        for message in turn.input:
            yield from (p.text for p in message.parts if isinstance(p, TextPart))
        for result in turn.tool_results:
            yield from strings(result.output)
            yield from (s for s in (result.denied, result.error, result.invalid_arguments) if s)


def _tools(turns: Any) -> Iterator[ToolRef]:
    """Each further Turn's scripted calls: Tools the agent is offered (or marked unoffered),
    checked at load like the first Turn's (its results are checked below, as declared)."""
    for t_index, turn in enumerate(turns or ()):
        for s_index, step in enumerate(turn.script or ()):
            if isinstance(step, ToolCallsStep):
                for c_index, call in enumerate(step.calls):
                    path = f"[{t_index}].script[{s_index}].calls[{c_index}].name"
                    yield ToolRef(path, call.name, call=True, unoffered=call.unoffered)


@hookimpl
def eval_case_fields() -> list[CaseField]:
    return [
        CaseField(
            name="journey",
            type=list[JourneyTurn],
            tiers=L3,
            description="Further Turns on the same conversation: [{input, toolResults?, script?}].",
            examples=[
                [
                    {
                        "input": [
                            {
                                "role": "user",
                                "content": "Which skills do you have now? Is bulb storage one?",
                            }
                        ],
                        "script": [
                            {"kind": "text", "text": "Yes: Bulb storage is among my skills now."}
                        ],
                    }
                ]
            ],
            given_text=_given,
            tool_names=_tools,
        )
    ]


def _declared(case: CaseBase) -> set[str]:
    return {t.name for t in case.tools} | set(case.platform_tools)


@hookimpl
@own_cases  # a Case's turnIndex is checked by run_events (:mod:`.turns`), which sees every Case
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    """A journey is non-empty, each Turn has input naming the Tools the Case declares."""
    problems: list[tuple[str, str]] = []
    journey = case.field("journey")
    if journey is not None:
        if not journey:
            problems.append(("$.journey", "must hold at least one further Turn"))
        declared = _declared(case)
        for index, turn in enumerate(journey):
            if not turn.input:
                problems.append((f"$.journey[{index}].input", "must hold at least one message"))
            for r_index, result in enumerate(turn.tool_results):
                if result.name not in declared:
                    problems.append(
                        (
                            f"$.journey[{index}].toolResults[{r_index}].name",
                            f"scripted result for {result.name!r}, which the Case does not "
                            f"declare (tools, platformTools){did_you_mean(result.name, declared)}",
                        )
                    )
    return problems
