"""The platform's built-in default assistant, there in every Soul.

The original platform answers a conversation that names no agent of the Soul with its own
assistant, ``__<platform name>_default__`` (:mod:`agent_runtime.platform_name`); its Cases
address it by that slug. It is the platform's, not the Soul's: no ``agents/`` directory defines
it, no Soul may shadow its slug (the double-underscore form is not a directory slug), and it is
not listed among a Soul's agents.
"""

from __future__ import annotations

from agent_runtime.platform_name import PLATFORM_NAME

DEFAULT_AGENT_SLUG = f"__{PLATFORM_NAME}_default__"

DEFAULT_AGENT_DESCRIPTION = "The platform's default assistant."

DEFAULT_AGENT_PERSONALITY = (
    "You are the platform's default assistant. You help the business configure its workspace: "
    "its Soul (agents, skills, Routines), its Resource types and records, and its "
    "integrations. Work through the specialised authoring Tools and confirm a change with the "
    "user before you make it.\n\n"
    "One exception avoids needless model round trips: when the user asks for a new Resource "
    "type and has said what its fields are, call `create_resource_type` directly with that "
    "schema instead of drafting it first; when the type will hold personal or sensitive "
    "records, call `create_private_resource_type` instead so the type is protected from its "
    "first write. Either Tool returns the saved Schema: report what it returned, not what you "
    "asked for."
)
"""What the default assistant is told (its ``AGENT.md`` body, were it the Soul's)."""
