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
    attach: tuple[str, ...] = ()
    """Files this call attaches to the next model request (a ``file_read`` of a PDF, an image
    or an office document): re-read from the store when that request is made."""


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
        "Reads a File the user can access, identified by its fileId: a text File comes back as "
        "text; a PDF, an image or an office document is attached to your next message.",
        _object({"fileId": _string("Identifier of the File to read.")}, ("fileId",)),
    ),
    ToolSpec(
        "file_create",
        "Creates a draft File from the given content in the given format; the user saves or "
        "discards the draft.",
        _object(
            {
                "filename": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 200,
                    "description": "File name; the format's extension is added when missing.",
                },
                "format": {
                    "type": "string",
                    "enum": [
                        "pdf",
                        "docx",
                        "pptx",
                        "xlsx",
                        "json",
                        "xml",
                        "yaml",
                        "markdown",
                        "text",
                        "csv",
                    ],
                    "description": "Format of the File.",
                },
                "content": _string("Full content of the File."),
                "title": _string("Document title, shown first."),
            },
            ("filename", "format", "content"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "file_list",
        "Lists the Files the user can access: their own, those shared with them, or both.",
        _object(
            {
                "scope": {
                    "type": "string",
                    "enum": ["mine", "shared", "all"],
                    "description": "Which Files to list (default all).",
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 50,
                    "description": "At most this many Files (default 20).",
                },
            },
            (),
        ),
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
        "Writes one Soul artifact (an Agent, a Skill or a Routine) by kind and slug, committing "
        "the new content (markdown, or a Routine's YAML) to the Soul repository.",
        _object(
            {
                "kind": {
                    "type": "string",
                    "enum": ["Agent", "Skill", "Routine"],
                    "description": "Kind.",
                },
                "slug": _string("Lowercase, hyphenated slug of the artifact."),
                "content": _string("Full markdown content, front matter included."),
            },
            ("kind", "slug", "content"),
        ),
        mutating=True,
    ),
)

_REPOSITORY = _string("Repository as owner/name.")
_SLUG = {
    "type": "string",
    "pattern": "^[a-z][a-z0-9-]{0,63}$",
    "description": "Slug of the integration: lowercase letters, digits and hyphens.",
}
_RECORD = {
    "type": _string("Resource type of the record, for example ticket."),
    "id": _string("Identifier of the record."),
    "version": {
        "type": "integer",
        "minimum": 1,
        "description": "Version of the record the caller has seen.",
    },
}
_DELETE_PLAN = _object(
    {
        "id": _string("Identifier of the preview."),
        "root": _object(_RECORD, ("type", "id", "version")),
        "records": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "object"},
            "description": "Every record the deletion removes, the root included.",
        },
        "restrictedBy": {
            "type": "array",
            "items": {"type": "object"},
            "description": "Records that restrict the deletion.",
        },
    },
    ("id", "root", "records", "restrictedBy"),
)
_HTTP_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PATCH", "PUT", "DELETE"]

_MORE: tuple[ToolSpec, ...] = (
    ToolSpec(
        "github_issue_create",
        "Opens a new issue in a GitHub repository (owner/name) with a title and an optional "
        "body, labels and assignees.",
        _object(
            {
                "repository": _REPOSITORY,
                "title": _string("Title of the issue."),
                "body": _string("Markdown body of the issue."),
                "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels."},
                "assignees": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Logins to assign.",
                },
            },
            ("repository", "title"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "record_delete_preview",
        "Previews the deletion of one record at a version: every record it would remove and any "
        "record that restricts it, without deleting anything.",
        _object(_RECORD, ("type", "id", "version")),
    ),
    ToolSpec(
        "record_delete",
        "Deletes one record at the version the caller has seen; pass the exact preview as "
        "plan to delete what the preview listed.",
        _object({**_RECORD, "plan": _DELETE_PLAN}, ("type", "id", "version")),
        mutating=True,
    ),
    ToolSpec(
        "api_request",
        "Sends one HTTP request to an external API (optionally a GraphQL document) and returns "
        "the status, headers and body of the response.",
        _object(
            {
                "url": {"type": "string", "format": "uri", "description": "Request URL."},
                "method": {"type": "string", "enum": _HTTP_METHODS, "description": "Method."},
                "headers": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "Request headers.",
                },
                "body": {"description": "Request body: a string or a JSON value."},
                "graphql": _object(
                    {
                        "document": _string("GraphQL document."),
                        "operationName": _string("Operation to run."),
                        "variables": {"type": "object", "description": "Variables."},
                    },
                    ("document",),
                ),
                "credential": _object(
                    {
                        "secret": _string("Name of the stored secret to send."),
                        "header": _string("Header the secret goes in."),
                        "format": _string("How the header value is built, e.g. Bearer {secret}."),
                    },
                    ("secret", "header"),
                ),
            },
            ("url", "method"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "soul_repo_push",
        "Pushes the Soul repository's committed changes to its remote; answers pushed false "
        "when the repository has no remote.",
        _object({}, ()),
        mutating=True,
    ),
    ToolSpec(
        "integration_list",
        "Lists the MCP integrations (servers) configured for this Soul.",
        _object({}, ()),
    ),
    ToolSpec(
        "integration_get",
        "Returns one MCP integration's configuration and reviewed capabilities by its slug.",
        _object({"slug": _SLUG}, ("slug",)),
    ),
    ToolSpec(
        "integration_configure",
        "Sets an MCP integration's configuration (server, transport, authentication); changing "
        "the transport clears its reviewed capabilities.",
        _object(
            {"slug": _SLUG, "configuration": {"type": "object", "description": "Configuration."}},
            ("slug", "configuration"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "integration_discover",
        "Asks an MCP integration's server which Tools, resources and prompts it offers.",
        _object({"slug": _SLUG}, ("slug",)),
    ),
    ToolSpec(
        "integration_review",
        "Records the reviewed capabilities of an MCP integration: only reviewed Tools are "
        "published to agents.",
        _object(
            {"slug": _SLUG, "capabilities": {"type": "object", "description": "Capabilities."}},
            ("slug", "capabilities"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "integration_resource_read",
        "Reads one resource of an MCP integration by its URI.",
        _object({"slug": _SLUG, "uri": _string("URI of the resource.")}, ("slug", "uri")),
    ),
    ToolSpec(
        "integration_prompt_render",
        "Renders one prompt of an MCP integration with the given arguments.",
        _object(
            {
                "slug": _SLUG,
                "name": _string("Name of the prompt."),
                "arguments": {"type": "object", "description": "Prompt arguments."},
            },
            ("slug", "name"),
        ),
    ),
    ToolSpec(
        "integration_draft_review",
        "Reviews a draft integration package (its manifest, companion files and setup guide) "
        "and returns the review report and the package digest.",
        _object(
            {
                "manifest": {"type": "object", "description": "The integration manifest."},
                "files": {
                    "type": "array",
                    "items": _object(
                        {
                            "path": _string("Path of the file in the package."),
                            "role": _string("What the file is for."),
                            "content": _string("Content of the file."),
                        },
                        ("path", "role", "content"),
                    ),
                    "description": "Companion files of the package.",
                },
                "setup_guide": _string("Setup guide of the integration, in markdown."),
            },
            ("manifest",),
        ),
    ),
    ToolSpec(
        "integration_draft_create",
        "Commits a reviewed integration package to the Soul under a slug, identified by the "
        "digest its review returned.",
        _object(
            {
                "slug": _SLUG,
                "package_digest": {
                    "type": "string",
                    "pattern": "^[0-9a-f]{64}$",
                    "description": "SHA-256 digest of the reviewed package, 64 hex digits.",
                },
                "replace": {"type": "boolean", "description": "Replace an existing one."},
            },
            ("slug", "package_digest"),
        ),
        mutating=True,
    ),
)

PLATFORM_TOOLS: Mapping[str, ToolSpec] = MappingProxyType(
    {t.name: t for t in (*_DECLARATIONS, *_MORE)}
)
"""The shipped platform Tool declarations, by name."""
