from __future__ import annotations

import pytest

from agent_runtime.tools import PLATFORM_TOOLS
from agent_runtime.turn.arguments import problem

REQUIRED = {
    "get_current_time": (set(), False),
    "web_fetch": ({"url"}, False),
    "file_read": ({"fileId"}, False),
    "file_create": ({"filename", "format", "content"}, True),
    "file_list": (set(), False),
    "github_repository_list": (set(), False),
    "github_issue_search": (set(), False),
    "github_issue_comment": ({"repository", "issueNumber", "body"}, True),
    "send_slack_message": ({"channel", "text"}, True),
    "slack_channel_list": (set(), False),
    "skill": ({"name"}, False),
    "validate_artifact": ({"artifact", "schema"}, False),
    "complete_state": (set(), True),
    "complete_task": ({"status"}, False),
    "plan_declare": ({"rounds"}, False),
    "plan_compile": ({"yaml"}, False),
    "pack_read": (set(), False),
    "record_create": ({"type", "data"}, True),
    "create_resource_type": ({"name", "schema"}, True),
    "github_issue_read": ({"repository", "issueNumber"}, False),
    "github_issue_label": ({"repository", "issueNumber", "labels"}, True),
    "github_issue_assign": ({"repository", "issueNumber", "assignees"}, True),
    "github_issue_close": ({"repository", "issueNumber"}, True),
    "github_pull_request_read": ({"repository", "pullNumber"}, False),
    "github_pull_request_search": (set(), False),
    "github_pull_request_create": ({"repository", "title", "head", "base"}, True),
    "github_pull_request_comment": ({"repository", "pullNumber", "body"}, True),
    "github_pull_request_review": ({"repository", "pullNumber", "event"}, True),
    "github_pull_request_merge": ({"repository", "pullNumber"}, True),
    "github_check_run_read": ({"repository", "ref"}, False),
    "github_repo_push": ({"repository", "branch", "message", "files"}, True),
    "github_repository_create": ({"name"}, True),
    "github_content_read": ({"repository", "path"}, False),
    "github_content_list": ({"repository"}, False),
    "lookup_ticket": ({"ticketId"}, False),
    "soul_write": ({"kind", "slug", "content"}, True),
    "github_issue_create": ({"title"}, True),
    "record_delete_preview": ({"type", "id", "version"}, False),
    "record_delete": ({"type", "id", "version"}, True),
    "api_request": ({"url", "method"}, True),
    "soul_repo_push": (set(), True),
    "integration_list": (set(), False),
    "integration_get": ({"slug"}, False),
    "integration_configure": ({"slug", "configuration"}, True),
    "integration_discover": ({"slug"}, False),
    "integration_review": ({"slug", "capabilities"}, True),
    "integration_resource_read": ({"slug", "uri"}, False),
    "integration_prompt_render": ({"slug", "name"}, False),
    "integration_draft_review": ({"manifest"}, False),
    "integration_draft_create": ({"slug", "package_digest"}, True),
}


def test_platform_tools_declare_their_inputs_and_mutability() -> None:
    for name, (required, mutating) in REQUIRED.items():
        spec = PLATFORM_TOOLS[name]
        assert spec.name == name
        assert spec.input_schema["type"] == "object"
        assert set(spec.input_schema["required"]) == required
        assert required <= set(spec.input_schema["properties"])
        assert spec.mutating is mutating
        assert spec.description.endswith(".") and len(spec.description) > 40
    assert set(REQUIRED) == set(PLATFORM_TOOLS)
    assert PLATFORM_TOOLS["github_repository_list"].input_schema["properties"] == {}


PREVIEW = {
    "id": "preview-1",
    "root": {"type": "ticket", "id": "00000000-0000-4000-8000-000000000001", "version": 3},
    "records": [{"type": "ticket", "id": "00000000-0000-4000-8000-000000000001"}],
    "restrictedBy": [],
}


@pytest.mark.parametrize(
    ("tool", "arguments", "wrong"),
    [
        ("api_request", {"url": "https://api.example/v1", "method": "GET"}, None),
        ("api_request", {"url": "https://api.example/v1", "method": "FETCH"}, "is not one of"),
        ("api_request", {"url": "https://x", "method": "POST", "graphql": {}}, "'document'"),
        (
            "api_request",
            {"url": "https://x", "method": "GET", "credential": {"secret": "k"}},
            "'header' is a required property",
        ),
        ("record_delete_preview", {"type": "ticket", "id": "t", "version": 0}, "minimum"),
        ("record_delete", {"type": "ticket", "id": "t", "version": 3, "plan": PREVIEW}, None),
        (
            "record_delete",
            {"type": "ticket", "id": "t", "version": 3, "plan": {**PREVIEW, "records": []}},
            "should be non-empty",
        ),
        ("integration_get", {"slug": "eval-mcp"}, None),
        ("integration_get", {"slug": "Eval_MCP"}, "does not match"),
        ("integration_draft_create", {"slug": "crm", "package_digest": "ab" * 32}, None),
        ("integration_draft_create", {"slug": "crm", "package_digest": "abc"}, "does not match"),
        ("soul_repo_push", {"force": True}, "Additional properties are not allowed"),
        ("github_issue_create", {"repository": "tulipfarm/storefront"}, "'title'"),
    ],
)
def test_argument_contracts_are_exact(tool: str, arguments: object, wrong: str | None) -> None:
    found = problem(PLATFORM_TOOLS[tool].input_schema, arguments)
    if wrong is None:
        assert found is None
    else:
        assert found is not None and wrong in found, found
