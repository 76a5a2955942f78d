"""The harness's model session behind LangChain's ``BaseChatModel``: what the graph calls.

The team's graph assembles its own prompt and binds its own Tools (``bind_tools``); this class
only translates. Each call's messages and the Tools bound to it become one
:class:`~eval_core.hosts.ModelCallRequest` for the session (scripted, or a real wire with its
retries and spend ceilings), and the reply becomes an ``AIMessage`` with its Tool calls and
usage. A vendor failure (:class:`~eval_core.hosts.ModelError`) propagates out of the graph
unchanged, so the Trial errors instead of scoring it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from eval_core.hosts import ModelCallRequest, ModelReply, ModelSession, ToolDecl, compact_json


def text_of(content: Any) -> str:
    """A LangChain message's text: a string, or the text blocks of a content list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            block if isinstance(block, str) else str(block.get("text", ""))
            for block in content
            if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
        )
    return ""


def neutral(message: BaseMessage) -> dict[str, Any] | None:
    """One LangChain message in the port's neutral chat shape (``None``: a system message)."""
    if isinstance(message, SystemMessage):
        return None
    if isinstance(message, ToolMessage):
        content = message.content
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "name": message.name or "",
            "content": content if isinstance(content, str) else compact_json(content) or "",
        }
    if isinstance(message, AIMessage):
        out: dict[str, Any] = {"role": "assistant", "content": text_of(message.content) or None}
        if message.tool_calls:
            out["tool_calls"] = [
                {"call_id": c.get("id") or "", "name": c["name"], "arguments": c["args"]}
                for c in message.tool_calls
            ]
        return out
    role = "user" if isinstance(message, HumanMessage) else message.type
    return {"role": role, "content": text_of(message.content)}


def request_of(messages: Sequence[BaseMessage], tools: Sequence[Any]) -> ModelCallRequest:
    """The call as the graph made it: its system messages joined, the rest in order."""
    system = "\n\n".join(text_of(m.content) for m in messages if isinstance(m, SystemMessage))
    shaped = [n for n in (neutral(m) for m in messages) if n is not None]
    return ModelCallRequest(system=system, messages=shaped, tools=[decl(t) for t in tools])


def decl(tool: Any) -> ToolDecl:
    """A bound Tool (already in OpenAI's tool shape, or anything ``bind_tools`` takes)."""
    shaped = tool if isinstance(tool, dict) and "function" in tool else convert_to_openai_tool(tool)
    function = shaped.get("function", {})
    return ToolDecl(
        name=str(function.get("name", "")),
        description=function.get("description") or None,
        input_schema=dict(function.get("parameters") or {"type": "object"}),
    )


def message_of(reply: ModelReply) -> AIMessage:
    """The session's reply as the ``AIMessage`` the graph reads."""
    usage = reply.usage
    content = reply.text or ""
    if reply.structured is not None and not content:
        content = compact_json(reply.structured) or ""
    return AIMessage(
        content=content,
        tool_calls=[
            {"name": c.name, "args": _args(c.arguments), "id": c.call_id, "type": "tool_call"}
            for c in reply.tool_calls
        ],
        usage_metadata={
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        },
        response_metadata={
            "finish_reason": reply.finish_reason,
            "model_name": reply.model_version or "",
        },
    )


def _args(arguments: Any) -> dict[str, Any]:
    """LangChain's Tool calls carry an object of arguments; anything else is kept whole."""
    return arguments if isinstance(arguments, dict) else {"__arguments__": arguments}


class SessionChatModel(BaseChatModel):
    """One Trial's model session as a LangChain chat model (``bind_tools`` included).

    ``on_request`` (the load-time probe) sees each request before the session does and may
    raise to stop the graph there.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    session: Any
    on_request: Callable[[ModelCallRequest], None] | None = None

    @classmethod
    def of(cls, session: ModelSession) -> SessionChatModel:
        return cls(session=session)

    @property
    def _llm_type(self) -> str:
        return "eval-session"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """The Tools go with every call, as a vendor's chat model sends them."""
        shaped = [convert_to_openai_tool(t) for t in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=shaped, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        request = request_of(messages, kwargs.get("tools") or ())
        if self.on_request is not None:
            self.on_request(request)
        reply = self.session.complete(request)
        return ChatResult(generations=[ChatGeneration(message=message_of(reply))])
