"""The platform's own Tools: the time, the web, plans, skills and packs, a Routine's States
and tasks, artifacts, and the support desk's ticket lookup."""

from __future__ import annotations

from agent_runtime.declarations.schema import object_schema, string
from agent_runtime.model import ToolSpec

DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "get_current_time",
        "Returns the current date, day of the week and time, in UTC unless an IANA time zone "
        "is given. Call it before reasoning about dates: nothing else says what now is.",
        object_schema(
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
        object_schema(
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
        object_schema({"output": {"description": "What the State produced."}}, ()),
        mutating=True,
    ),
    ToolSpec(
        "complete_task",
        "Reports that the delegated work is over (success, failed or cancelled) and hands "
        "control back.",
        object_schema(
            {
                "status": {"type": "string", "enum": ["success", "failed", "cancelled"]},
                "summary": string("One line on what was done."),
                "result": {"type": "object", "description": "A structured result, if any."},
                "error": string("Why, when the status is failed."),
            },
            ("status",),
        ),
    ),
    ToolSpec(
        "plan_declare",
        "Shows the person the Rounds of work ahead before they run (2 to 8 Rounds, each 1 to "
        "12 calls that can run together). Only for complex multi-step work; it runs nothing.",
        object_schema(
            {
                "rounds": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 8,
                    "items": object_schema(
                        {
                            "calls": {
                                "type": "array",
                                "minItems": 1,
                                "maxItems": 12,
                                "items": object_schema(
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
        object_schema(
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
        object_schema(
            {
                "url": {"type": "string", "format": "uri", "description": "Where the pack is."},
                "yaml": string("The pack itself, as YAML."),
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
        object_schema(
            {
                "name": {
                    "type": "string",
                    "pattern": "^[a-z0-9][a-z0-9._-]*$",
                    "maxLength": 64,
                    "description": "Name of the Skill, for example refund-policy.",
                },
                "file": string("A file of the Skill to read instead of its SKILL.md."),
                "mode": {"type": "string", "enum": ["load", "inspect", "run", "shell"]},
                "command": string("The command to run, in run or shell mode."),
                "arguments": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Arguments of the command.",
                },
                "destination": string("Where a run writes its output."),
            },
            ("name",),
        ),
    ),
    ToolSpec(
        "web_fetch",
        "Fetches a public web page and answers the prompt about it from the page's content.",
        object_schema(
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
        "lookup_ticket",
        "Looks up a support ticket by its id and returns its status, priority, customer and notes.",
        object_schema({"ticketId": string("Ticket id, for example T-1042.")}, ("ticketId",)),
    ),
)
