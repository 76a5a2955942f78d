from __future__ import annotations

from agent_runtime.tools import PLATFORM_TOOLS

REQUIRED = {
    "get_current_time": (set(), False),
    "web_fetch": ({"url"}, False),
    "file_read": ({"fileId"}, False),
    "file_create": ({"name", "mediaType", "content"}, True),
    "github_repository_list": (set(), False),
    "github_issue_search": ({"repository", "query"}, False),
    "github_issue_comment": ({"repository", "issue", "body"}, True),
    "slack_post_message": ({"channel", "text"}, True),
    "skill_reference": ({"slug"}, False),
    "lookup_ticket": ({"ticketId"}, False),
    "soul_write": ({"kind", "slug", "content"}, True),
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
    assert "owner" in PLATFORM_TOOLS["github_repository_list"].input_schema["properties"]
