"""The Tool execution port and the catalogue of platform Tools the runtime ships.

The loop decides *whether* a call may run (guards, capability, autonomy); a :class:`ToolExecutor`
decides *what* it returns. The declarations in :data:`PLATFORM_TOOLS` are what a model is shown,
so their descriptions are precise sentences: harnesses hash them and ground Expectations in them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal, Protocol

import msgspec

from agent_runtime.model import ToolCallRequest, ToolSpec

ToolStatus = Literal[
    "succeeded", "failed", "denied", "invalid_arguments", "awaiting_approval", "awaiting_retry"
]
PARKED: frozenset[str] = frozenset({"awaiting_approval", "awaiting_retry"})
"""Outcomes that are no answer yet: the Tool's provider waits on an approval, or asks to be
retried later. The loop parks the call; nothing is reported to the model or recorded as an
effect."""


class ToolOutcome(msgspec.Struct, frozen=True):
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


_REPOSITORY: dict[str, Any] = {
    "type": "string",
    "minLength": 3,
    "maxLength": 140,
    "pattern": "^[A-Za-z0-9._-]+/[A-Za-z0-9._-]+$",
    "description": "Repository as owner/name.",
}
_NUMBER = {"type": "integer", "minimum": 1, "description": "Number of the issue."}
_PULL = {"type": "integer", "minimum": 1, "description": "Number of the pull request."}
_LOGINS = {
    "type": "array",
    "minItems": 1,
    "maxItems": 10,
    "uniqueItems": True,
    "items": {"type": "string", "minLength": 1, "maxLength": 39},
    "description": "GitHub logins.",
}
_LABELS = {
    "type": "array",
    "minItems": 1,
    "maxItems": 20,
    "uniqueItems": True,
    "items": {"type": "string", "minLength": 1, "maxLength": 50},
    "description": "Label names.",
}


def _search(kind: str) -> dict[str, Any]:
    return _object(
        {
            "repository": _REPOSITORY,
            "repositories": {
                "type": "array",
                "minItems": 1,
                "maxItems": 25,
                "uniqueItems": True,
                "items": _REPOSITORY,
                "description": f"Several repositories to search in one call; omit both this "
                f"and repository to search every repository the {kind} search can see.",
            },
            "query": {
                "type": "string",
                "maxLength": 256,
                "description": "Free-text terms; omit or leave empty to list by state alone.",
            },
            "state": {"type": "string", "enum": ["open", "closed", "all"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        },
        (),
    )


def _on_repository(properties: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    return _object({"repository": _REPOSITORY, **properties}, ("repository", *required))


_DECLARATIONS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "get_current_time",
        "Returns the current date, day of the week and time, in UTC unless an IANA time zone "
        "is given. Call it before reasoning about dates: nothing else says what now is.",
        _object(
            {
                "timezone": {
                    "type": "string",
                    "minLength": 1,
                    "description": "IANA time zone, for example Europe/Amsterdam.",
                }
            },
            (),
        ),
    ),
    ToolSpec(
        "validate_artifact",
        "Checks a value against a JSON Schema and returns valid true, or valid false with the "
        "path and message of each error.",
        _object(
            {
                "artifact": {"description": "The value to check."},
                "schema": {"type": "object", "description": "The JSON Schema to check it against."},
            },
            ("artifact", "schema"),
        ),
    ),
    ToolSpec(
        "complete_state",
        "Completes the current Routine State with its output; only a Turn a Routine started "
        "may call it.",
        _object({"output": {"description": "What the State produced."}}, ()),
        mutating=True,
    ),
    ToolSpec(
        "complete_task",
        "Reports that the delegated work is over (success, failed or cancelled) and hands "
        "control back.",
        _object(
            {
                "status": {"type": "string", "enum": ["success", "failed", "cancelled"]},
                "summary": _string("One line on what was done."),
                "result": {"type": "object", "description": "A structured result, if any."},
                "error": _string("Why, when the status is failed."),
            },
            ("status",),
        ),
    ),
    ToolSpec(
        "plan_declare",
        "Shows the person the Rounds of work ahead before they run (2 to 8 Rounds, each 1 to "
        "12 calls that can run together). Only for complex multi-step work; it runs nothing.",
        _object(
            {
                "rounds": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 8,
                    "items": _object(
                        {
                            "calls": {
                                "type": "array",
                                "minItems": 1,
                                "maxItems": 12,
                                "items": _object(
                                    {
                                        "tool": {"type": "string", "minLength": 1, "maxLength": 80},
                                        "label": {
                                            "type": "string",
                                            "minLength": 1,
                                            "maxLength": 120,
                                        },
                                    },
                                    ("tool",),
                                ),
                            }
                        },
                        ("calls",),
                    ),
                    "description": "The Rounds, in order.",
                }
            },
            ("rounds",),
        ),
        participant_activity="represented",
    ),
    ToolSpec(
        "plan_compile",
        "Compiles a plan written as YAML into a Routine preview without running it (the "
        "result says executed false).",
        _object(
            {
                "yaml": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 131072,
                    "description": "Plan.",
                }
            },
            ("yaml",),
        ),
    ),
    ToolSpec(
        "pack_read",
        "Reads a Soul pack from a URL or from inline YAML (exactly one of the two) and returns "
        "it with its SHA-256.",
        _object(
            {
                "url": {"type": "string", "format": "uri", "description": "Where the pack is."},
                "yaml": _string("The pack itself, as YAML."),
                "expectedSha256": {
                    "type": "string",
                    "pattern": "^[0-9a-f]{64}$",
                    "description": "Refuse the pack unless its SHA-256 is this.",
                },
            },
            (),
        ),
    ),
    ToolSpec(
        "skill",
        "Loads one of the agent's Skills by name (its instructions and files), inspects it, or "
        "runs one of its commands.",
        _object(
            {
                "name": {
                    "type": "string",
                    "pattern": "^[a-z0-9][a-z0-9._-]*$",
                    "maxLength": 64,
                    "description": "Name of the Skill, for example refund-policy.",
                },
                "file": _string("A file of the Skill to read instead of its SKILL.md."),
                "mode": {"type": "string", "enum": ["load", "inspect", "run", "shell"]},
                "command": _string("The command to run, in run or shell mode."),
                "arguments": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Arguments of the command.",
                },
                "destination": _string("Where a run writes its output."),
            },
            ("name",),
        ),
    ),
    ToolSpec(
        "web_fetch",
        "Fetches a public web page and answers the prompt about it from the page's content.",
        _object(
            {
                "url": {
                    "type": "string",
                    "format": "uri",
                    "minLength": 1,
                    "maxLength": 2000,
                    "description": "Page URL.",
                },
                "prompt": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 4000,
                    "description": "What to find out from the page (optional, as in the "
                    "original: without it the page's content comes back).",
                },
            },
            ("url",),
        ),
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
        "Lists the GitHub repositories the connected installation can see.",
        _object({}, ()),
    ),
    ToolSpec(
        "github_issue_read",
        "Reads one GitHub issue: title, body, state, labels and assignees.",
        _on_repository({"issueNumber": _NUMBER}, ("issueNumber",)),
    ),
    ToolSpec(
        "github_issue_search",
        "Searches GitHub issues in one repository, several, or every installed one, by free "
        "text and state; returns the total count and the matching issues.",
        _search("issue"),
    ),
    ToolSpec(
        "github_issue_create",
        "Opens a new issue in a GitHub repository (owner/name; the connected default when "
        "omitted) with a title and an optional body, labels and assignees.",
        _object(
            {
                "repository": _REPOSITORY,
                "title": {"type": "string", "minLength": 1, "maxLength": 256},
                "body": {"type": "string", "maxLength": 65536},
                "labels": _LABELS,
                "assignees": _LOGINS,
            },
            ("title",),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_issue_comment",
        "Posts a comment on a GitHub issue in the given repository (owner/name).",
        _on_repository(
            {
                "issueNumber": _NUMBER,
                "body": {"type": "string", "minLength": 1, "maxLength": 65536},
            },
            ("issueNumber", "body"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_issue_label",
        "Adds labels to a GitHub issue in the given repository (owner/name).",
        _on_repository({"issueNumber": _NUMBER, "labels": _LABELS}, ("issueNumber", "labels")),
        mutating=True,
    ),
    ToolSpec(
        "github_issue_assign",
        "Assigns people, by GitHub login, to an issue in the given repository.",
        _on_repository(
            {"issueNumber": _NUMBER, "assignees": _LOGINS}, ("issueNumber", "assignees")
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_issue_close",
        "Closes a GitHub issue, as completed or as not planned.",
        _on_repository(
            {
                "issueNumber": _NUMBER,
                "stateReason": {"type": "string", "enum": ["completed", "not_planned"]},
            },
            ("issueNumber",),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_pull_request_read",
        "Reads one GitHub pull request: title, body, state, branches and mergeability.",
        _on_repository({"pullNumber": _PULL}, ("pullNumber",)),
    ),
    ToolSpec(
        "github_pull_request_search",
        "Searches GitHub pull requests in one repository, several, or every installed one.",
        _search("pull request"),
    ),
    ToolSpec(
        "github_pull_request_create",
        "Opens a pull request from a head branch into a base branch.",
        _on_repository(
            {
                "title": {"type": "string", "minLength": 1, "maxLength": 256},
                "head": _string("Branch with the changes."),
                "base": _string("Branch to merge into."),
                "body": {"type": "string", "maxLength": 65536},
                "draft": {"type": "boolean"},
            },
            ("title", "head", "base"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_pull_request_comment",
        "Posts a comment on a GitHub pull request in the given repository (owner/name).",
        _on_repository(
            {"pullNumber": _PULL, "body": {"type": "string", "minLength": 1, "maxLength": 65536}},
            ("pullNumber", "body"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_pull_request_review",
        "Submits a review of a GitHub pull request: approve, request changes, or comment.",
        _on_repository(
            {
                "pullNumber": _PULL,
                "event": {"type": "string", "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"]},
                "body": {"type": "string", "maxLength": 65536},
            },
            ("pullNumber", "event"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_pull_request_merge",
        "Merges a GitHub pull request (merge, squash or rebase).",
        _on_repository(
            {
                "pullNumber": _PULL,
                "mergeMethod": {"type": "string", "enum": ["merge", "squash", "rebase"]},
            },
            ("pullNumber",),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_check_run_read",
        "Reads the check runs of a commit or branch of a GitHub repository.",
        _on_repository({"ref": _string("Commit SHA or branch.")}, ("ref",)),
    ),
    ToolSpec(
        "github_repo_push",
        "Pushes files as one commit to a branch of a GitHub repository.",
        _on_repository(
            {
                "branch": _string("Branch to push to."),
                "message": _string("Commit message."),
                "files": {
                    "type": "array",
                    "minItems": 1,
                    "items": _object(
                        {"path": _string("Path in the repository."), "content": _string("Text.")},
                        ("path", "content"),
                    ),
                },
            },
            ("branch", "message", "files"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_repository_create",
        "Creates a GitHub repository in the installation's organisation.",
        _object(
            {
                "name": _string("Name of the repository."),
                "description": _string("What it is for."),
                "private": {"type": "boolean"},
            },
            ("name",),
        ),
        mutating=True,
    ),
    ToolSpec(
        "github_content_read",
        "Reads one file of a GitHub repository at a ref.",
        _on_repository(
            {"path": _string("Path of the file."), "ref": _string("Branch or SHA.")}, ("path",)
        ),
    ),
    ToolSpec(
        "github_content_list",
        "Lists a directory of a GitHub repository at a ref.",
        _on_repository({"path": _string("Directory path."), "ref": _string("Branch or SHA.")}, ()),
    ),
    ToolSpec(
        "slack_channel_list",
        "Lists the Slack channels the bot has joined, with their ids.",
        _object({}, ()),
    ),
    ToolSpec(
        "send_slack_message",
        "Sends a message to a Slack channel the bot has joined; returns the channel id, the "
        "message timestamp and its thread.",
        _object(
            {
                "channel": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 80,
                    "description": "Channel name (a leading # is optional) or channel id.",
                },
                "text": {"type": "string", "minLength": 1, "maxLength": 4000},
            },
            ("channel", "text"),
        ),
        mutating=True,
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
                "companion": _string("A companion file of the artifact, when its kind has one."),
                "definitionMode": {
                    "type": "string",
                    "enum": ["canonical", "legacy"],
                    "description": "How the definition is written; legacy unless told.",
                },
                "subject": _string("Commit subject; soul: update <Kind> <slug> unless told."),
                "expectedBaseCommit": _string(
                    "The commit the writer read; a moved head is a CONFLICT."
                ),
            },
            ("kind", "slug", "content"),
        ),
        mutating=True,
    ),
)

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
        "record_create",
        "Creates one record of a resource type from its data and returns its id and version.",
        _object(
            {
                "type": _string("Resource type of the record, for example ticket."),
                "data": {"type": "object", "description": "The record's fields."},
            },
            ("type", "data"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "create_resource_type",
        "Defines a new resource type from its schema (YAML), committed to the Soul.",
        _object(
            {
                "name": _string("Name of the resource type."),
                "schema": _string("The type's schema, as YAML."),
            },
            ("name", "schema"),
        ),
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
                "manifest": {
                    "type": ["object", "string"],
                    "description": "The integration manifest, as an object or its YAML text.",
                },
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
