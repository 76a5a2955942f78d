"""The Soul's Tools (:mod:`agent_runtime.soul.repo` runs ``soul_write``): an artifact written,
the repository pushed, a resource type defined."""

from __future__ import annotations

from agent_runtime.declarations.schema import object_schema, string
from agent_runtime.model import ToolSpec

DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "soul_write",
        "Writes one Soul artifact (an Agent, a Skill or a Routine) by kind and slug, committing "
        "the new content (markdown, or a Routine's YAML) to the Soul repository.",
        object_schema(
            {
                "kind": {
                    "type": "string",
                    "enum": ["Agent", "Skill", "Routine"],
                    "description": "Kind.",
                },
                "slug": string("Lowercase, hyphenated slug of the artifact."),
                "content": string("Full markdown content, front matter included."),
                "companion": string("A companion file of the artifact, when its kind has one."),
                "definitionMode": {
                    "type": "string",
                    "enum": ["canonical", "legacy"],
                    "description": "How the definition is written; legacy unless told.",
                },
                "subject": string("Commit subject; soul: update <Kind> <slug> unless told."),
                "expectedBaseCommit": string(
                    "The commit the writer read; a moved head is a CONFLICT."
                ),
            },
            ("kind", "slug", "content"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "soul_repo_push",
        "Pushes the Soul repository's committed changes to its remote; answers pushed false "
        "when the repository has no remote.",
        object_schema({}, ()),
        mutating=True,
    ),
    ToolSpec(
        "create_resource_type",
        "Defines a new resource type from its schema (YAML), committed to the Soul.",
        object_schema(
            {
                "name": string("Name of the resource type."),
                "schema": string("The type's schema, as YAML."),
            },
            ("name", "schema"),
        ),
        mutating=True,
    ),
)
