"""The context assembler: the one place a system prompt is built from a Soul and a Turn.

:data:`CONTEXT_SECTIONS` is the assembler's own map of context keys; which keys a caller may set
and which the Soul owns are derived from it, so a harness validating a Case's ``context`` can
never drift from what the assembler actually renders; :data:`CONTEXT_TYPES` says what value
each key takes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from agent_runtime.model import ToolSpec
from agent_runtime.soul.loader import Agent, Soul
from agent_runtime.turn.contained import RequestRefusedError
from agent_runtime.turn.platform_prompt import CONTEXT_MODES, PLATFORM_RULES, mode_instructions

Owner = Literal["soul", "turn"]

CONTEXT_SECTIONS: Mapping[str, tuple[str, Owner]] = MappingProxyType(
    {
        "personality": ("Personality", "soul"),
        "platformInstructions": ("Instructions for this conversation", "turn"),
        "customInstructions": ("Custom instructions", "turn"),
        "mode": ("Mode", "turn"),
    }
)
"""Context key -> (section title, owner), in the order the sections are rendered."""

TURN_CONTEXT_KEYS: frozenset[str] = frozenset(
    key for key, (_, owner) in CONTEXT_SECTIONS.items() if owner == "turn"
)
SOUL_OWNED_CONTEXT_KEYS: frozenset[str] = frozenset(
    key for key, (_, owner) in CONTEXT_SECTIONS.items() if owner == "soul"
)
CONTEXT_TYPES: Mapping[str, Any] = MappingProxyType(
    {
        "platformInstructions": str | None,
        "customInstructions": str | None,
        "mode": Literal["plan"] | None,  # the keys of CONTEXT_MODES
    }
)
"""The value each Turn context key takes (``None``: the section is left out), as a type a caller
can check a Turn's context against before it runs: exactly what :func:`assemble_system_prompt`
accepts."""
_FROM_TOOLS = "reaches the model as the conversation or a Tool result, never as prompt context"
_SKILLS = "the skill index is derived from the Soul's skills/ folder"
RETIRED_CONTEXT_KEYS: Mapping[str, str] = MappingProxyType(
    {
        "memory": f"what the agent remembers {_FROM_TOOLS}",
        "memoryDocument": f"a memory document {_FROM_TOOLS}",
        "business": "business facts belong in the agent's personality (AGENT.md body)",
        "governancePages": "governance is enforced by guardrails.yaml, not described in context",
        "knowledgeGrounding": f"grounding knowledge {_FROM_TOOLS}",
        "pinnedKnowledge": f"pinned knowledge {_FROM_TOOLS}",
        "availableSkills": _SKILLS,
        "eagerSkills": f"{_SKILLS}; a Skill's body is read on demand",
        "soulCatalogue": "the Soul's artifacts are read from the Soul, not restated per Turn",
        "taggedResources": f"a tagged record {_FROM_TOOLS} (look it up with a Tool)",
        "availableTools": "the tool index is derived from the Tools passed to the Turn",
        "surfaceCatalog": "surfaces are not part of the prompt",
        "temporal": "the current time comes from the get_current_time Tool",
        "agentId": "the agent is chosen by its slug when the Turn starts",
        "domain": "an agent's domain is its AGENT.md",
        "tenantId": "tenancy is not part of the prompt",
    }
)
"""Keys an older runtime accepted, each with where that information lives now."""


class ContextError(RequestRefusedError):
    """A context key the caller may not set, or a value of the wrong shape."""


def _section(title: str, body: str) -> str:
    return f"## {title}\n{body}"


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ContextError(f"context {key!r} must be a string")
    return value.strip()


def _mode(value: Any, tools: Sequence[ToolSpec]) -> str:
    if not isinstance(value, str) or value not in CONTEXT_MODES:
        raise ContextError(f"context 'mode' must be one of {sorted(CONTEXT_MODES)}")
    return _section(CONTEXT_MODES[value], mode_instructions(value, {t.name for t in tools}))


def _other_agents(soul: Soul, agent: Agent) -> str | None:
    """The Soul's other agents, so the model can name and hand over to them."""
    others = [a for slug, a in sorted(soul.agents.items()) if slug != agent.slug]
    if not others:
        return None
    lines = [f"- {a.slug}: {a.description}" if a.description else f"- {a.slug}" for a in others]
    return _section("Other agents in this Soul", "\n".join(lines))


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, dict)) and not value)


def _check_keys(context: Mapping[str, Any]) -> None:
    for key in context:
        if key in TURN_CONTEXT_KEYS:
            continue
        if key in SOUL_OWNED_CONTEXT_KEYS:
            raise ContextError(f"context {key!r} is owned by the Soul and cannot be set per Turn")
        if key in RETIRED_CONTEXT_KEYS and _empty(context[key]):
            continue  # the original's empty default (`governancePages: []`): nothing to render
        if key in RETIRED_CONTEXT_KEYS:
            raise ContextError(f"context {key!r} is retired: {RETIRED_CONTEXT_KEYS[key]}")
        raise ContextError(f"unknown context key {key!r} (allowed: {sorted(TURN_CONTEXT_KEYS)})")


_PROMPTS: dict[Any, tuple[Soul, Agent, str]] = {}
_PROMPTS_KEPT = 128
"""Assembled prompts kept (then all dropped at once): a Sweep's Turns share a few agents and
Tool sets, so most Turns reuse a prompt instead of re-rendering it."""


def assemble_system_prompt(
    soul: Soul, agent: Agent, context: Mapping[str, Any], tools: Sequence[ToolSpec]
) -> str:
    """The system prompt: personality, platform rules, other agents, Turn context (a mode
    adds its instructions), skills, Tool index.

    Remembered per Soul and agent (by identity: a loaded Soul is not changed) and by what the
    prompt reads of the context and the Tools; an unhashable context value is assembled, and
    refused, every time."""
    index = tuple((t.name, t.description) for t in tools)
    key = (id(soul), id(agent), tuple(context.items()), index)
    try:
        kept = _PROMPTS.get(key)
    except TypeError:
        return _assemble(soul, agent, context, tools)
    if kept is not None and kept[0] is soul and kept[1] is agent:
        return kept[2]
    prompt = _assemble(soul, agent, context, tools)
    if len(_PROMPTS) >= _PROMPTS_KEPT:
        _PROMPTS.clear()
    _PROMPTS[key] = (soul, agent, prompt)  # holding both keeps their ids from being reused
    return prompt


def _assemble(
    soul: Soul, agent: Agent, context: Mapping[str, Any], tools: Sequence[ToolSpec]
) -> str:
    if context:
        _check_keys(context)
    titles = CONTEXT_SECTIONS
    parts = [
        _section(titles["personality"][0], agent.personality),
        _section("Platform instructions", "\n\n".join(PLATFORM_RULES)),
    ]
    if (others := _other_agents(soul, agent)) is not None:
        parts.append(others)
    for key in sorted(TURN_CONTEXT_KEYS, key=list(titles).index):
        if (value := context.get(key)) is None:
            continue
        if key == "mode":
            parts.append(_mode(value, tools))
        else:
            parts.append(_section(titles[key][0], _text(key, value)))
    if soul.skills:
        skills = "\n".join(f"- {s.name} ({s.slug}): {s.description}" for s in soul.skills.values())
        parts.append(_section("Available skills", skills))
    if tools:
        parts.append(_section("Tools", "\n".join(f"- {t.name}: {t.description}" for t in tools)))
    return "\n\n".join(parts)
