"""The desk agent on the OpenAI Agents SDK, run as a process: one conversation in, one answer out.

It is an ordinary Agents SDK program. Its model is whatever ``OPENAI_BASE_URL`` serves (the
SDK's own client reads it and ``OPENAI_API_KEY``); its order desk's Tools come from the MCP
server at ``EVAL_MCP_URL`` (the SDK's ``MCPServerStreamableHttp``, its bearer token
``EVAL_MCP_TOKEN``: the model key never reaches the Tool server); ``shipping_days`` is a
function Tool of its own. Under the eval harness (``--host process``) both URLs are the
harness's, which stands in for the model and serves (and witnesses) the Tools; the protocol is
``eval-process/1`` (docs/process-host.md): the conversation as JSON on stdin, the answer as
JSON on stdout.

``--wire chat`` talks Chat Completions instead of the Responses API; ``--stream`` runs the
agent streamed (``Runner.run_streamed``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from agents import (
    Agent,
    MaxTurnsExceeded,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI

INSTRUCTIONS = (Path(__file__).parent / "prompt.md").read_text(encoding="utf-8")
MAX_TURNS = 8
DAYS = {"uk": 2, "germany": 4, "france": 4, "usa": 7}


@function_tool
def shipping_days(country: str) -> int:
    """Working days a standard parcel takes to reach a country."""
    return DAYS.get(country.strip().lower(), 10)


def build(model: Any, tools: MCPServerStreamableHttp) -> Agent[Any]:
    return Agent(
        name="desk",
        instructions=INSTRUCTIONS,
        model=model,
        mcp_servers=[tools],
        tools=[shipping_days],
    )


async def answer(conversation: list[dict[str, str]], wire: str, stream: bool) -> dict[str, Any]:
    set_tracing_disabled(True)  # nothing leaves for OpenAI's trace exporter
    client = AsyncOpenAI()  # OPENAI_BASE_URL, OPENAI_API_KEY
    name = os.environ.get("EVAL_MODEL") or os.environ.get("DESK_MODEL", "gpt-4.1-mini")
    model: Any = (
        OpenAIChatCompletionsModel(model=name, openai_client=client)
        if wire == "chat"
        else OpenAIResponsesModel(model=name, openai_client=client)
    )
    # the Tool server's own credential, never the model key (eval-process/1: EVAL_MCP_TOKEN)
    key = os.environ.get("EVAL_MCP_TOKEN", "")
    params: Any = {"url": os.environ["EVAL_MCP_URL"], "headers": {"Authorization": f"Bearer {key}"}}
    async with MCPServerStreamableHttp(params, cache_tools_list=True, name="desk-orders") as tools:
        agent = build(model, tools)
        items: Any = [{"role": m["role"], "content": m["content"]} for m in conversation]
        try:
            if stream:
                run = Runner.run_streamed(agent, items, max_turns=MAX_TURNS)
                async for _ in run.stream_events():
                    pass
                output = run.final_output
            else:
                output = (await Runner.run(agent, items, max_turns=MAX_TURNS)).final_output
        except MaxTurnsExceeded:
            return {"answer": "", "status": "failed", "reason": "iteration_limit"}
    return {"answer": str(output or ""), "status": "completed"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wire", choices=("responses", "chat"), default="responses")
    parser.add_argument("--stream", action="store_true")
    options = parser.parse_args()
    request = json.load(sys.stdin)
    result = asyncio.run(answer(request["messages"], options.wire, options.stream))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
