"""The prompt family: pass, fail and not-observed for every kind, plus its value checks."""

from __future__ import annotations

from typing import Any

import pytest

from eval_core._case.evidence import Evidence, ModelRequest, OfferedTool
from eval_core._case.kinds import Expectation
from eval_expectations_turn.offered import ToolOffered
from eval_expectations_turn.prompt import (
    ModelMessagesInOrder,
    ModelNotCalled,
    ModelPromptContains,
    ModelPromptOmits,
    PromptContains,
    PromptOmits,
    eval_kinds,
)
from turn_scoring import Scoring, ev

score = Scoring.of(eval_kinds())
PROMPT = "You are the finance agent.\n## Tools\nUse ledger_read for balances."


def request(system: str, *messages: Any) -> ModelRequest:
    return ModelRequest(system=system, messages=list(messages), tools=[])


READ = OfferedTool(
    name="file_read",
    description="Reads a File.",
    input_schema={"type": "object", "required": ["fileId"], "properties": {"fileId": {}}},
)


def offering(*tools: OfferedTool | None) -> Evidence:
    """One request per entry, offering that Tool (``None``: declarations not recorded)."""
    return ev(
        model_requests=[
            ModelRequest(
                system="s",
                messages=[],
                tools=[t.name] if t else [],
                offered=[t] if t else None,
            )
            for t in tools
        ]
    )


REQUIRED = ToolOffered(name="file_read", path="inputSchema.required", value=["fileId"])


PART_TEXT = ev(
    model_requests=[
        request("s", {"role": "user", "content": [{"type": "text", "text": "a part text"}]})
    ]
)
"""One request whose user message is a list of parts, one of them text."""


CASES = [
    # prompt_contains
    (PromptContains(text="## Tools"), ev(system_prompt=PROMPT), True, 'contains "## Tools"'),
    (PromptContains(text="## tools"), ev(system_prompt=PROMPT), False, "does not contain"),
    (PromptContains(text="x"), ev(), False, "not observed"),
    # prompt_omits
    (PromptOmits(text="secret"), ev(system_prompt=PROMPT), True, 'omits "secret"'),
    (PromptOmits(text="ledger_read"), ev(system_prompt=PROMPT), False, "at offset"),
    (PromptOmits(text="x"), ev(), False, "not observed"),
    # model_prompt_contains: the LAST request, its system and messages
    (
        ModelPromptContains(text="balance of 42"),
        ev(
            model_requests=[
                request("first"),
                request("sys", {"role": "user", "content": "what is the balance of 42?"}),
            ]
        ),
        True,
        "message 0",
    ),
    (
        ModelPromptContains(text="finance agent"),
        ev(model_requests=[request(PROMPT, {"role": "user", "content": "hi"})]),
        True,
        "system",
    ),
    (
        ModelPromptContains(text="part text"),
        PART_TEXT,
        True,
        "message 0",
    ),
    (
        ModelPromptContains(text="only early"),
        ev(model_requests=[request("only early"), request("later, compacted")]),
        False,
        "does not contain",
    ),
    (ModelPromptContains(text="x"), ev(model_requests=[]), False, "no request"),
    (ModelPromptContains(text="x"), ev(), False, "not observed"),
    # model_prompt_omits: EVERY request, its system and messages
    (
        ModelPromptOmits(text="withheld secret"),
        ev(model_requests=[request("s", {"role": "user", "content": "hi"}), request("s2")]),
        True,
        "none of the 2 model request(s)",
    ),
    (
        ModelPromptOmits(text="only early"),
        ev(model_requests=[request("s", {"role": "tool", "content": "only early"}), request("x")]),
        False,
        "request #1 of 2",
    ),
    (
        ModelPromptOmits(text="part text"),
        PART_TEXT,
        False,
        "message 0",
    ),
    (ModelPromptOmits(text="x"), ev(model_requests=[]), False, "no request"),
    (ModelPromptOmits(text="x"), ev(), False, "not observed"),
    # model_messages_in_order: the LAST request, each text in a later message
    (
        ModelMessagesInOrder(
            texts=["order 61", "look into it", "before Saturday"],
            roles=["user", "assistant", "user"],
        ),
        ev(
            model_requests=[
                request("s", {"role": "user", "content": "before Saturday"}),
                request(
                    "s",
                    {"role": "user", "content": "my order 61"},
                    {"role": "assistant", "content": "I will look into it"},
                    {"role": "user", "content": [{"type": "text", "text": "before Saturday?"}]},
                ),
            ]
        ),
        True,
        "in message 2",
    ),
    (
        ModelMessagesInOrder(texts=["order 61", "before Saturday"], roles=["user", "user"]),
        ev(
            model_requests=[
                request(
                    "s",
                    {"role": "user", "content": "before Saturday?"},
                    {"role": "user", "content": "my order 61"},
                )
            ]
        ),
        False,
        "is in message 0, before",
    ),
    (
        ModelMessagesInOrder(texts=["a", "missing"], roles=["user", "user"]),
        ev(model_requests=[request("missing", {"role": "user", "content": "a"})]),
        False,
        "no message from 1 on holds",
    ),
    (
        ModelMessagesInOrder(texts=["a", "b"], roles=["user", "user"]),
        ev(model_requests=[]),
        False,
        "no request",
    ),
    (ModelMessagesInOrder(texts=["a", "b"], roles=["user", "user"]), ev(), False, "not observed"),
    # the fault: an earlier assistant turn handed to the model as a user message (its text
    # and its place kept) is caught by its role
    (
        ModelMessagesInOrder(
            texts=["order 61", "look into it", "before Saturday"],
            roles=["user", "assistant", "user"],
        ),
        ev(
            model_requests=[
                request(
                    "s",
                    {"role": "user", "content": "my order 61"},
                    {"role": "user", "content": "I will look into it"},
                    {"role": "user", "content": "before Saturday?"},
                )
            ]
        ),
        False,
        '"look into it" is in message 1, a user message, not an assistant message',
    ),
    (
        ModelMessagesInOrder(texts=["a", "b"], roles=["user"]),
        ev(model_requests=[request("s", {"role": "user", "content": "a b"})]),
        False,
        "2 texts but 1 roles",
    ),
    # tool_offered: every request, its declaration as sent
    (REQUIRED, offering(READ, READ), True, "all 2 model request(s) offered"),
    (
        ToolOffered(name="file_read", path="description", value="Reads a File."),
        offering(READ),
        True,
        "offered",
    ),
    (
        REQUIRED,
        offering(READ, OfferedTool(name="file_read", description="Reads a File.")),
        False,
        'request #2 of 2: the declaration of "file_read" has no inputSchema.required',
    ),
    (
        ToolOffered(name="file_read", path="inputSchema.required", value=[]),
        offering(READ),
        False,
        'has inputSchema.required = ["fileId"], expected []',
    ),
    (
        REQUIRED,
        offering(READ, OfferedTool(name="file_list")),
        False,
        'request #2 of 2 did not offer "file_read"; it offered file_list',
    ),
    (REQUIRED, offering(None), False, "Tool declarations not recorded"),
    (REQUIRED, ev(), False, "model requests not observed"),
    (REQUIRED, ev(model_requests=[]), False, "the model received no request"),
    # model_not_called
    (ModelNotCalled(), ev(model_calls=0), True, "not called"),
    (ModelNotCalled(), ev(model_calls=2), False, "2 times"),
    (ModelNotCalled(), ev(), False, "model calls not observed"),
]


@pytest.mark.parametrize(("e", "evidence", "expected", "needle"), CASES)
def test_scoring(e: Expectation, evidence: Evidence, expected: bool, needle: str) -> None:
    score.row(e, evidence, expected, needle)


def test_every_kind_has_pass_fail_and_not_observed() -> None:
    for struct in score.specs:
        outcomes = {
            (exp, "not observed" in needle) for e, _, exp, needle in CASES if type(e) is struct
        }
        assert (
            (True, False) in outcomes and (False, False) in outcomes and (False, True) in outcomes
        )


def test_exact_comparison() -> None:
    assert not score(PromptContains(text="you are"), ev(system_prompt=PROMPT))[0]
    assert score(PromptOmits(text="you are"), ev(system_prompt=PROMPT))[0]


def test_messages_of_any_shape_never_raise() -> None:
    weird = request("s", 5, None, ["x"], {"content": 3}, {"content": [1, {"text": 2}]}, "plain hit")
    assert score(ModelPromptContains(text="hit"), ev(model_requests=[weird]))[0]
    assert not score(ModelPromptOmits(text="hit"), ev(model_requests=[weird]))[0]


@pytest.mark.parametrize(
    "struct", [PromptContains, PromptOmits, ModelPromptContains, ModelPromptOmits]
)
def test_check_refuses_empty_text(struct: type[PromptContains]) -> None:
    check = score.specs[struct].check
    assert check is not None
    assert list(check(struct(text="ok"), None)) == []
    assert list(check(struct(text=""), None)) == [(".text", "must be a non-empty string")]
    assert list(check(struct(text="  "), None)) == [(".text", "must be a non-empty string")]
