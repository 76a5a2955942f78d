"""The integration Tools (:mod:`agent_runtime.mcp` publishes and calls integrations): list,
configure, discover, review and draft integrations, and read their resources and prompts."""

from __future__ import annotations

from agent_runtime.declarations.schema import object_schema, string
from agent_runtime.model import ToolSpec

_SLUG = {
    "type": "string",
    "pattern": "^[a-z][a-z0-9-]{0,63}$",
    "description": "Slug of the integration: lowercase letters, digits and hyphens.",
}

DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "integration_list",
        "Lists the MCP integrations (servers) configured for this Soul.",
        object_schema({}, ()),
    ),
    ToolSpec(
        "integration_get",
        "Returns one MCP integration's configuration and reviewed capabilities by its slug.",
        object_schema({"slug": _SLUG}, ("slug",)),
    ),
    ToolSpec(
        "integration_configure",
        "Sets an MCP integration's configuration (server, transport, authentication); changing "
        "the transport clears its reviewed capabilities.",
        object_schema(
            {"slug": _SLUG, "configuration": {"type": "object", "description": "Configuration."}},
            ("slug", "configuration"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "integration_discover",
        "Asks an MCP integration's server which Tools, resources and prompts it offers.",
        object_schema({"slug": _SLUG}, ("slug",)),
    ),
    ToolSpec(
        "integration_review",
        "Records the reviewed capabilities of an MCP integration: only reviewed Tools are "
        "published to agents.",
        object_schema(
            {"slug": _SLUG, "capabilities": {"type": "object", "description": "Capabilities."}},
            ("slug", "capabilities"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "integration_resource_read",
        "Reads one resource of an MCP integration by its URI.",
        object_schema({"slug": _SLUG, "uri": string("URI of the resource.")}, ("slug", "uri")),
    ),
    ToolSpec(
        "integration_prompt_render",
        "Renders one prompt of an MCP integration with the given arguments.",
        object_schema(
            {
                "slug": _SLUG,
                "name": string("Name of the prompt."),
                "arguments": {"type": "object", "description": "Prompt arguments."},
            },
            ("slug", "name"),
        ),
    ),
    ToolSpec(
        "integration_draft_review",
        "Reviews a draft integration package (its manifest, companion files and setup guide) "
        "and returns the review report and the package digest.",
        object_schema(
            {
                "manifest": {
                    "type": ["object", "string"],
                    "description": "The integration manifest, as an object or its YAML text.",
                },
                "files": {
                    "type": "array",
                    "items": object_schema(
                        {
                            "path": string("Path of the file in the package."),
                            "role": string("What the file is for."),
                            "content": string("Content of the file."),
                        },
                        ("path", "role", "content"),
                    ),
                    "description": "Companion files of the package.",
                },
                "setup_guide": string("Setup guide of the integration, in markdown."),
            },
            ("manifest",),
        ),
    ),
    ToolSpec(
        "integration_draft_create",
        "Commits a reviewed integration package to the Soul under a slug, identified by the "
        "digest its review returned.",
        object_schema(
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
