"""The Slack Tools: the channels, and a message sent to one."""

from __future__ import annotations

from agent_runtime.declarations.schema import object_schema
from agent_runtime.model import ToolSpec

DECLARED: tuple[ToolSpec, ...] = (
    ToolSpec(
        "slack_channel_list",
        "Lists the Slack channels the bot has joined, with their ids.",
        object_schema({}, ()),
    ),
    ToolSpec(
        "send_slack_message",
        "Sends a message to a Slack channel the bot has joined; returns the channel id, the "
        "message timestamp and its thread.",
        object_schema(
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
)
