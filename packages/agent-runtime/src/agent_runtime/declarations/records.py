"""The record Tools: records created and deleted (a deletion previewed first), and an external
API's request."""

from __future__ import annotations

from agent_runtime.declarations.schema import object_schema, string
from agent_runtime.model import ToolSpec

_RECORD = {
    "type": string("Resource type of the record, for example ticket."),
    "id": string("Identifier of the record."),
    "version": {
        "type": "integer",
        "minimum": 1,
        "description": "Version of the record the caller has seen.",
    },
}

_DELETE_PLAN = object_schema(
    {
        "id": string("Identifier of the preview."),
        "root": object_schema(_RECORD, ("type", "id", "version")),
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

DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "record_delete_preview",
        "Previews the deletion of one record at a version: every record it would remove and any "
        "record that restricts it, without deleting anything.",
        object_schema(_RECORD, ("type", "id", "version")),
    ),
    ToolSpec(
        "record_delete",
        "Deletes one record at the version the caller has seen; pass the exact preview as "
        "plan to delete what the preview listed.",
        object_schema({**_RECORD, "plan": _DELETE_PLAN}, ("type", "id", "version")),
        mutating=True,
    ),
    ToolSpec(
        "record_create",
        "Creates one record of a resource type from its data and returns its id and version.",
        object_schema(
            {
                "type": string("Resource type of the record, for example ticket."),
                "data": {"type": "object", "description": "The record's fields."},
            },
            ("type", "data"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "api_request",
        "Sends one HTTP request to an external API (optionally a GraphQL document) and returns "
        "the status, headers and body of the response.",
        object_schema(
            {
                "url": {"type": "string", "format": "uri", "description": "Request URL."},
                "method": {"type": "string", "enum": _HTTP_METHODS, "description": "Method."},
                "headers": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    "description": "Request headers.",
                },
                "body": {"description": "Request body: a string or a JSON value."},
                "graphql": object_schema(
                    {
                        "document": string("GraphQL document."),
                        "operationName": string("Operation to run."),
                        "variables": {"type": "object", "description": "Variables."},
                    },
                    ("document",),
                ),
                "credential": object_schema(
                    {
                        "secret": string("Name of the stored secret to send."),
                        "header": string("Header the secret goes in."),
                        "format": string("How the header value is built, e.g. Bearer {secret}."),
                    },
                    ("secret", "header"),
                ),
            },
            ("url", "method"),
        ),
        mutating=True,
    ),
)
