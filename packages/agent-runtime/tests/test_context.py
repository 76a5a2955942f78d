from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, get_args

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_runtime.soul.loader import Soul, load_soul
from agent_runtime.tools import PLATFORM_TOOLS
from agent_runtime.turn import context
from agent_runtime.turn.context import (
    CONTEXT_SECTIONS,
    CONTEXT_TYPES,
    RETIRED_CONTEXT_KEYS,
    SOUL_OWNED_CONTEXT_KEYS,
    TURN_CONTEXT_KEYS,
    ContextError,
    assemble_system_prompt,
)
from agent_runtime.turn.platform_prompt import (
    CONTEXT_MODES,
    PACK_INSTALL,
    PLAN_MODE,
    PLATFORM_PREAMBLE,
    PLATFORM_RULES,
    mode_instructions,
)


def test_key_sets_are_derived_from_the_section_mapping() -> None:
    assert {"personality"} == SOUL_OWNED_CONTEXT_KEYS
    assert {"platformInstructions", "customInstructions", "mode"} == TURN_CONTEXT_KEYS
    assert set(CONTEXT_SECTIONS) == TURN_CONTEXT_KEYS | SOUL_OWNED_CONTEXT_KEYS
    assert not set(RETIRED_CONTEXT_KEYS) & set(CONTEXT_SECTIONS)
    assert {
        "memory", "memoryDocument", "business", "governancePages",
        "knowledgeGrounding", "pinnedKnowledge", "availableSkills", "eagerSkills",
        "soulCatalogue", "taggedResources", "availableTools", "surfaceCatalog", "temporal",
        "agentId", "domain", "tenantId",
    } == set(RETIRED_CONTEXT_KEYS)  # fmt: skip
    assert all(hint for hint in RETIRED_CONTEXT_KEYS.values())


def test_every_turn_key_declares_the_value_it_takes() -> None:
    assert set(CONTEXT_TYPES) == TURN_CONTEXT_KEYS
    mode = {a for t in get_args(CONTEXT_TYPES["mode"]) for a in get_args(t)}
    assert mode == set(CONTEXT_MODES)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=5,
)


@given(
    key=st.sampled_from(sorted(CONTEXT_TYPES)),
    value=JSON_VALUES | st.sampled_from([*CONTEXT_MODES, "chat", "Plan", ""]),
)
def test_the_declared_type_accepts_exactly_what_the_assembler_does(
    eval_soul: Soul, key: str, value: Any
) -> None:
    """What a harness checks a context value against before a Turn (:data:`CONTEXT_TYPES`,
    strictly, as msgspec reads it) is what the assembler takes: no value passes that check
    and then fails the Turn, and none is refused that a Turn would take."""
    try:
        msgspec.convert(value, CONTEXT_TYPES[key], strict=True)
        declared = True
    except msgspec.ValidationError:
        declared = False
    try:
        assemble_system_prompt(eval_soul, eval_soul.agent("support"), {key: value}, [])
        assembled = True
    except ContextError:
        assembled = False
    assert declared == assembled, (key, value)


def test_every_section_is_rendered_in_order(eval_soul: Soul) -> None:
    agent = eval_soul.agent("support")
    tools = [PLATFORM_TOOLS["lookup_ticket"], PLATFORM_TOOLS["web_fetch"]]
    prompt = assemble_system_prompt(
        eval_soul,
        agent,
        {"customInstructions": "Sign off warmly.", "platformInstructions": "Answer in Dutch."},
        tools,
    )
    expected = [
        agent.personality,
        PLATFORM_PREAMBLE,
        "Answer in Dutch.",
        "Sign off warmly.",
        "- Refund policy (refund-policy): When Tulip Farm refunds an order",
        "- Ticket hygiene (ticket-hygiene):",
        f"- lookup_ticket: {PLATFORM_TOOLS['lookup_ticket'].description}",
        f"- web_fetch: {PLATFORM_TOOLS['web_fetch'].description}",
    ]
    positions = [prompt.index(text) for text in expected]
    assert positions == sorted(positions)
    for key, (title, _) in CONTEXT_SECTIONS.items():
        assert key == "mode" or f"## {title}\n" in prompt  # a mode's title is its own


def test_absent_context_sections_are_left_out(eval_soul: Soul) -> None:
    prompt = assemble_system_prompt(eval_soul, eval_soul.agent("triage"), {}, [])
    assert "## Instructions for this conversation" not in prompt and "## Tools" not in prompt
    assert PLATFORM_PREAMBLE in prompt
    assert prompt == assemble_system_prompt(eval_soul, eval_soul.agent("triage"), {}, [])


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"personality": "x"}, "owned by the Soul"),
        ({"business": "x"}, "retired: business facts"),
        ({"colour": "x"}, "unknown context key 'colour'"),
        ({"memory": ["x"]}, "retired: what the agent remembers"),
        ({"customInstructions": ["x"]}, "must be a string"),
        ({"taggedResources": ["x"]}, "retired: a tagged record"),
        ({"platformInstructions": ["x"]}, "must be a string"),
        ({"mode": "chat"}, "'mode' must be one of \\['plan'\\]"),
    ],
)
def test_bad_context_is_refused(eval_soul: Soul, context: dict[str, object], message: str) -> None:
    with pytest.raises(ContextError, match=message):
        assemble_system_prompt(eval_soul, eval_soul.agent("support"), context, [])


def test_an_empty_retired_key_is_a_no_op(eval_soul: Soul) -> None:
    """The original's Cases carry ``governancePages: []`` and ``memory: []``: nothing to
    render, so the prompt is the one sent without them."""
    agent = eval_soul.agent("support")
    bare = assemble_system_prompt(eval_soul, agent, {}, [])
    empty = {"governancePages": [], "memory": [], "memoryDocument": ""}
    assert assemble_system_prompt(eval_soul, agent, empty, []) == bare


def test_every_turn_sends_the_platform_rules_and_names_the_other_agents(eval_soul: Soul) -> None:
    """The rules are the original's sentences; the other agents are listed, this one is not."""
    prompt = assemble_system_prompt(eval_soul, eval_soul.agent("support"), {}, [])
    assert all(rule in prompt for rule in PLATFORM_RULES)
    others = prompt.split("## Other agents in this Soul\n", 1)[1].split("\n\n", 1)[0]
    listed = {line[2:].split(":", 1)[0] for line in others.splitlines()}
    assert listed == set(eval_soul.agents) - {"support"}


def test_plan_mode_adds_its_rules_and_the_pack_rules_only_with_pack_read(eval_soul: Soul) -> None:
    agent = eval_soul.agent("support")
    plan = [PLATFORM_TOOLS["plan_compile"]]
    bare = assemble_system_prompt(eval_soul, agent, {}, plan)
    planned = assemble_system_prompt(eval_soul, agent, {"mode": "plan"}, plan)
    assert PLAN_MODE not in bare and PLAN_MODE in planned and PACK_INSTALL not in planned
    packed = assemble_system_prompt(
        eval_soul, agent, {"mode": "plan"}, [*plan, PLATFORM_TOOLS["pack_read"]]
    )
    assert "## Plan mode" in packed and PACK_INSTALL in packed


@pytest.mark.parametrize("mode", ["chat", "Plan", ""])
def test_a_mode_the_runtime_does_not_know_has_no_instructions(mode: str) -> None:
    """Asked directly for a mode it does not know, the platform prompt refuses, naming the
    modes there are: it never hands back another mode's rules."""
    with pytest.raises(ValueError, match=r"unknown mode .*known: \['plan'\]"):
        mode_instructions(mode, {"pack_read"})


def test_a_remembered_prompt_is_its_own_souls(eval_soul: Soul, soul_copy: Path) -> None:
    """Prompts are remembered across Turns by Soul and agent; a second Soul whose agent of the
    same slug says something else gets its own prompt, each what the assembler renders."""
    file = soul_copy / "agents" / "support" / "AGENT.md"
    file.write_text(file.read_text() + "\nAlways mention the tulip festival.\n")
    other = load_soul(soul_copy)
    tools = [PLATFORM_TOOLS["lookup_ticket"]]
    for soul in (eval_soul, other, eval_soul, other):
        agent = soul.agent("support")
        prompt = assemble_system_prompt(soul, agent, {"mode": "plan"}, tools)
        assert prompt == context._assemble(soul, agent, {"mode": "plan"}, tools)
        assert ("tulip festival" in prompt) == (soul is other)


def test_the_remembered_prompts_stay_bounded(eval_soul: Soul) -> None:
    """A process that assembles prompts for ever more Tool sets keeps at most
    ``_PROMPTS_KEPT`` of them (each holds its Soul and agent alive), and still gets each
    prompt as the assembler renders it."""
    agent = eval_soul.agent("support")
    lookup = PLATFORM_TOOLS["lookup_ticket"]
    for index in range(context._PROMPTS_KEPT + 10):
        tools = [dataclasses.replace(lookup, description=f"Look up ticket set {index}.")]
        prompt = assemble_system_prompt(eval_soul, agent, {}, tools)
        assert f"Look up ticket set {index}." in prompt
        assert len(context._PROMPTS) <= context._PROMPTS_KEPT


def test_an_unhashable_context_value_is_refused_every_time(eval_soul: Soul) -> None:
    agent = eval_soul.agent("support")
    for _ in range(2):
        with pytest.raises(ContextError, match="'customInstructions' must be a string"):
            assemble_system_prompt(eval_soul, agent, {"customInstructions": ["Be brief."]}, [])
