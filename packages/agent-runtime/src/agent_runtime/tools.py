"""The Tool execution port and the catalogue of platform Tools the runtime ships.

The loop decides *whether* a call may run (guards, capability, autonomy); a :class:`ToolExecutor`
decides *what* it returns. The declarations in :data:`PLATFORM_TOOLS` are what a model is shown,
so their descriptions are precise sentences: harnesses hash them and ground Expectations in them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, Protocol

from agent_runtime.model import ToolCallRequest, ToolSpec

ToolStatus = Literal[
    "succeeded", "failed", "denied", "invalid_arguments", "awaiting_approval", "awaiting_retry"
]
PARKED: frozenset[str] = frozenset({"awaiting_approval", "awaiting_retry"})
"""Outcomes that are no answer yet: the Tool's provider waits on an approval, or asks to be
retried later. The loop parks the call; nothing is reported to the model or recorded as an
effect."""


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one executed call returned; ``reason`` explains anything but success.

    A parked outcome names what the provider waits on (``wait_id``) and, for a retry, when to
    come back (``retry_after_ms``; the runtime's default backoff when the provider is silent).
    """

    status: ToolStatus
    output: Any = None
    reason: str | None = None
    wait_id: str | None = None
    retry_after_ms: int | None = None


class ToolExecutor(Protocol):
    """Runs a call that every gate let through."""

    def execute(self, call: ToolCallRequest) -> ToolOutcome: ...


def _object(properties: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


_DECLARATIONS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "get_current_time",
        "Returns the current date and time in UTC as an ISO 8601 timestamp.",
        _object({}, ()),
    ),
    ToolSpec(
        "web_fetch",
        "Fetches a public web page over HTTPS and returns its title and readable text.",
        _object({"url": {"type": "string", "format": "uri", "description": "Page URL."}}, ("url",)),
    ),
    ToolSpec(
        "file_read",
        "Reads the text content of a File the user can access, identified by its fileId.",
        _object({"fileId": _string("Identifier of the File to read.")}, ("fileId",)),
    ),
    ToolSpec(
        "file_create",
        "Creates a new File with the given name, media type and text content, and returns its "
        "fileId.",
        _object(
            {
                "name": _string("File name, including its extension."),
                "mediaType": _string("IANA media type, for example text/markdown."),
                "content": _string("Full text content of the File."),
            },
            ("name", "mediaType", "content"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_repository_list",
        "Lists the GitHub repositories the connected account can see, optionally for one owner.",
        _object({"owner": _string("User or organisation login to filter by.")}, ()),
    ),
    ToolSpec(
        "github_issue_search",
        "Searches the issues of one GitHub repository (owner/name) with a free-text query.",
        _object(
            {
                "repository": _string("Repository as owner/name."),
                "query": _string("Free-text search query."),
            },
            ("repository", "query"),
        ),
    ),
    ToolSpec(
        "github_issue_comment",
        "Posts a comment on a GitHub issue in the given repository (owner/name).",
        _object(
            {
                "repository": _string("Repository as owner/name."),
                "issue": {"type": "integer", "minimum": 1, "description": "Issue number."},
                "body": _string("Markdown body of the comment."),
            },
            ("repository", "issue", "body"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "slack_post_message",
        "Posts a message to a Slack channel in the connected workspace.",
        _object(
            {
                "channel": _string("Channel name (with #) or channel id."),
                "text": _string("Message text, Slack markdown allowed."),
            },
            ("channel", "text"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "skill_reference",
        "Returns the full instructions of one of the agent's Skills, identified by its slug.",
        _object({"slug": _string("Slug of the Skill, for example refund-policy.")}, ("slug",)),
    ),
    ToolSpec(
        "lookup_ticket",
        "Looks up a support ticket by its id and returns its status, priority, customer and notes.",
        _object({"ticketId": _string("Ticket id, for example T-1042.")}, ("ticketId",)),
    ),
    ToolSpec(
        "soul_write",
        "Writes one Soul artifact (an Agent or a Skill) by kind and slug, committing the new "
        "markdown content to the Soul repository.",
        _object(
            {
                "kind": {"type": "string", "enum": ["Agent", "Skill"], "description": "Kind."},
                "slug": _string("Lowercase, hyphenated slug of the artifact."),
                "content": _string("Full markdown content, front matter included."),
            },
            ("kind", "slug", "content"),
        ),
        mutating=True,
    ),
)

PLATFORM_TOOLS: Mapping[str, ToolSpec] = MappingProxyType({t.name: t for t in _DECLARATIONS})
"""The shipped platform Tool declarations, by name."""
