from __future__ import annotations

import pytest

from agent_runtime.context import (
    CONTEXT_SECTIONS,
    PLATFORM_PREAMBLE,
    RETIRED_CONTEXT_KEYS,
    SOUL_OWNED_CONTEXT_KEYS,
    TURN_CONTEXT_KEYS,
    ContextError,
    assemble_system_prompt,
)
from agent_runtime.soul import Soul
from agent_runtime.tools import PLATFORM_TOOLS


def test_key_sets_are_derived_from_the_section_mapping() -> None:
    assert {"personality"} == SOUL_OWNED_CONTEXT_KEYS
    assert {"platformInstructions"} == TURN_CONTEXT_KEYS
    assert set(CONTEXT_SECTIONS) == TURN_CONTEXT_KEYS | SOUL_OWNED_CONTEXT_KEYS
    assert not set(RETIRED_CONTEXT_KEYS) & set(CONTEXT_SECTIONS)
    assert {
        "memory", "memoryDocument", "business", "customInstructions", "governancePages",
        "knowledgeGrounding", "pinnedKnowledge", "availableSkills", "eagerSkills",
        "soulCatalogue", "taggedResources", "availableTools", "surfaceCatalog", "temporal",
        "agentId", "domain", "tenantId",
    } == set(RETIRED_CONTEXT_KEYS)  # fmt: skip
    assert all(hint for hint in RETIRED_CONTEXT_KEYS.values())


def test_every_section_is_rendered_in_order(eval_soul: Soul) -> None:
    agent = eval_soul.agent("support")
    tools = [PLATFORM_TOOLS["lookup_ticket"], PLATFORM_TOOLS["web_fetch"]]
    prompt = assemble_system_prompt(
        eval_soul,
        agent,
        {"platformInstructions": "Answer in Dutch."},
        tools,
    )
    expected = [
        agent.personality,
        PLATFORM_PREAMBLE,
        "Answer in Dutch.",
        "- Refund policy (refund-policy): When Tulip Farm refunds an order",
        "- Ticket hygiene (ticket-hygiene):",
        f"- lookup_ticket: {PLATFORM_TOOLS['lookup_ticket'].description}",
        f"- web_fetch: {PLATFORM_TOOLS['web_fetch'].description}",
    ]
    positions = [prompt.index(text) for text in expected]
    assert positions == sorted(positions)
    for title, _ in CONTEXT_SECTIONS.values():
        assert f"## {title}\n" in prompt


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
        ({"customInstructions": "x"}, "retired: per-conversation instructions"),
        ({"taggedResources": []}, "retired: a tagged record"),
        ({"platformInstructions": ["x"]}, "must be a string"),
    ],
)
def test_bad_context_is_refused(eval_soul: Soul, context: dict[str, object], message: str) -> None:
    with pytest.raises(ContextError, match=message):
        assemble_system_prompt(eval_soul, eval_soul.agent("support"), context, [])
