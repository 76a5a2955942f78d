"""The File Tools (:mod:`agent_runtime.files.tools` runs them): read, create and list Files."""

from __future__ import annotations

from agent_runtime.declarations.schema import object_schema, string
from agent_runtime.model import ToolSpec

DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "file_read",
        "Reads a File the user can access, identified by its fileId: a text File comes back as "
        "text; a PDF, an image or an office document is attached to your next message.",
        object_schema({"fileId": string("Identifier of the File to read.")}, ("fileId",)),
    ),
    ToolSpec(
        "file_create",
        "Creates a draft File from the given content in the given format; the user saves or "
        "discards the draft.",
        object_schema(
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
                "content": string("Full content of the File."),
                "title": string("Document title, shown first."),
            },
            ("filename", "format", "content"),
        ),
        mutating=True,
    ),
    ToolSpec(
        "file_list",
        "Lists the Files the user can access: their own, those shared with them, or both.",
        object_schema(
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
)
