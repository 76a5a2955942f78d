"""A user prompt of several parts reaches the model as the neutral request's typed parts.

The Host hands pydantic-ai each Case message as one string, so no Case sends a prompt of parts;
the team's own code does (``agent.run(["Is this bulb mouldy?", BinaryContent(...)])``, a
history processor adding an image), and the recorded request must then read as the provider
received it: text as ``text`` parts, an image as an ``image`` part (what the provider-prompt
kinds compare, :func:`eval_core.kinds.parts_of`).
"""

from __future__ import annotations

from pydantic_ai.messages import BinaryContent, ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo

from eval_core.hosts import sent
from eval_core.kinds import parts_of
from eval_host_pydantic_ai.model import request_of

INFO = AgentInfo(
    function_tools=[],
    allow_text_output=True,
    output_tools=[],
    model_settings=None,
    model_request_parameters=ModelRequestParameters(),
    instructions=None,
)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


def test_a_prompt_of_text_and_an_image_reaches_the_model_as_typed_parts() -> None:
    photo = BinaryContent(PNG, media_type="image/png", identifier="bulb.png")
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(["Is this bulb mouldy?", photo, "Order A-1001."])])
    ]
    request = request_of(messages, INFO)
    received = parts_of(sent(request.system, request.messages, []))
    assert [(p.type, p.role, p.text) for p in received[1:]] == [
        ("text", "user", "Is this bulb mouldy?"),
        ("image", "user", None),
        ("text", "user", "Order A-1001."),
    ]
    assert (received[2].media_type, received[2].size) == ("image/png", len(PNG))
