"""The GitHub Tools: repositories, issues, pull requests, checks, contents and pushes."""

from __future__ import annotations

from typing import Any

from agent_runtime.declarations.schema import object_schema, string
from agent_runtime.model import ToolSpec

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
    return object_schema(
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
    return object_schema({"repository": _REPOSITORY, **properties}, ("repository", *required))


DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "github_repository_list",
        "Lists the GitHub repositories the connected installation can see.",
        object_schema({}, ()),
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
        object_schema(
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
                "head": string("Branch with the changes."),
                "base": string("Branch to merge into."),
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
        _on_repository({"ref": string("Commit SHA or branch.")}, ("ref",)),
    ),
    ToolSpec(
        "github_repo_push",
        "Pushes files as one commit to a branch of a GitHub repository.",
        _on_repository(
            {
                "branch": string("Branch to push to."),
                "message": string("Commit message."),
                "files": {
                    "type": "array",
                    "minItems": 1,
                    "items": object_schema(
                        {"path": string("Path in the repository."), "content": string("Text.")},
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
        object_schema(
            {
                "name": string("Name of the repository."),
                "description": string("What it is for."),
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
            {"path": string("Path of the file."), "ref": string("Branch or SHA.")}, ("path",)
        ),
    ),
    ToolSpec(
        "github_content_list",
        "Lists a directory of a GitHub repository at a ref.",
        _on_repository({"path": string("Directory path."), "ref": string("Branch or SHA.")}, ()),
    ),
)
