"""Our binding as a pydantic-ai ``Model``: every request pydantic-ai assembled goes to the
Trial's model session, and the session's reply comes back as pydantic-ai's own response.

:class:`SessionModel` is a :class:`~pydantic_ai.models.function.FunctionModel` (pydantic-ai's
public model for a callable), so pydantic-ai keeps its own prompt assembly, its own
instructions, its own Tool definitions and its own loop; this module only translates one
request into the neutral shape of :class:`~eval_core.hosts.ModelCallRequest` and one
:class:`~eval_core.hosts.ModelReply` back. The scripted binding, the OpenAI-compatible and
Anthropic wires, their retries and spend accounting all arrive through the session unchanged.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import msgspec
from pydantic_ai.messages import (
    BaseToolReturnPart,
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    RetryFeedbackPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from eval_core.hosts import ModelCallRequest, ModelReply, ModelSession, ToolDecl

FINAL_CALL_ID = "final-result"


def declaration(tool: ToolDefinition) -> ToolDecl:
    """A pydantic-ai Tool definition as the Case format declares a Tool."""
    return ToolDecl(
        name=tool.name,
        input_schema=dict(tool.parameters_json_schema),
        description=tool.description,
    )


def request_of(messages: list[ModelMessage], info: AgentInfo) -> ModelCallRequest:
    """What pydantic-ai assembled for one call: its instructions and system prompts as the
    system text, its history as neutral chat messages, its function and output Tools."""
    system: list[str] = [info.instructions] if info.instructions else []
    chat: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                _request_part(part, system, chat)
        elif isinstance(message, ModelResponse):
            chat.append(_response(message))
    tools = [declaration(t) for t in (*info.function_tools, *info.output_tools)]
    return ModelCallRequest(system="\n\n".join(system), messages=chat, tools=tools)


def _request_part(part: Any, system: list[str], chat: list[dict[str, Any]]) -> None:
    if isinstance(part, SystemPromptPart):
        system.append(part.content)
    elif isinstance(part, UserPromptPart):
        chat.append({"role": "user", "content": _user_content(part.content)})
    elif isinstance(part, BaseToolReturnPart):
        chat.append(
            {
                "role": "tool",
                "tool_call_id": part.tool_call_id,
                "name": part.tool_name,
                "content": part.model_response_str(),
            }
        )
    elif isinstance(part, RetryPromptPart) and part.tool_name is not None:
        chat.append(
            {
                "role": "tool",
                "tool_call_id": part.tool_call_id,
                "name": part.tool_name,
                "content": part.model_response(),
            }
        )
    elif isinstance(part, (RetryPromptPart, RetryFeedbackPart)):
        chat.append({"role": "user", "content": part.model_response()})


def _user_content(content: Any) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, str):
            parts.append({"type": "text", "text": item})
        elif isinstance(item, BinaryContent):
            parts.append(
                {
                    "type": "image" if item.is_image else "file",
                    "mediaType": item.media_type,
                    "filename": item.identifier,
                    "data": base64.b64encode(item.data).decode("ascii"),
                }
            )
        else:
            parts.append({"type": "text", "text": str(item)})
    return parts


def _response(message: ModelResponse) -> dict[str, Any]:
    text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
    calls = [
        {"call_id": p.tool_call_id, "name": p.tool_name, "arguments": p.args_as_dict()}
        for p in message.parts
        if isinstance(p, ToolCallPart)
    ]
    turn: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        turn["tool_calls"] = calls
    return turn


def response_of(reply: ModelReply, info: AgentInfo) -> ModelResponse:
    """The session's reply as pydantic-ai's response: text, Tool calls, and a structured
    answer as a call of pydantic-ai's output Tool (or its JSON, when text is the output)."""
    parts: list[ModelResponsePart] = []
    if reply.text:
        parts.append(TextPart(content=reply.text))
    for call in reply.tool_calls:
        parts.append(
            ToolCallPart(tool_name=call.name, args=call.arguments, tool_call_id=call.call_id)
        )
    if reply.structured is not None:
        if info.output_tools:
            parts.append(
                ToolCallPart(
                    tool_name=info.output_tools[0].name,
                    args=reply.structured,
                    tool_call_id=FINAL_CALL_ID,
                )
            )
        else:
            parts.append(TextPart(content=msgspec.json.encode(reply.structured).decode()))
    usage = reply.usage
    return ModelResponse(
        parts=parts,
        usage=RequestUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        ),
        model_name=reply.model_version,
    )


class SessionModel(FunctionModel):
    """pydantic-ai's model for one Trial: each request sent through the Trial's session.

    A real wire blocks on the network, so the call runs off the event loop (other Trials in
    flight on the Host's loop keep going)."""

    def __init__(self, session: ModelSession, model_id: str, blocking: bool) -> None:
        self.session = session
        self.output_tools: set[str] = set()
        self._blocking = blocking
        super().__init__(function=self._call, model_name=model_id)

    async def _call(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.output_tools.update(t.name for t in info.output_tools)
        request = request_of(messages, info)
        if self._blocking:
            reply = await asyncio.to_thread(self.session.complete, request)
        else:
            reply = self.session.complete(request)
        return response_of(reply, info)
