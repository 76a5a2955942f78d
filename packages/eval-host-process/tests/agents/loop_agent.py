"""A minimal agent speaking eval-process/1 on any served wire, for the Host's tests.

``python loop_agent.py WIRE [MISBEHAVIOUR]``: WIRE is ``chat``, ``chat-stream``,
``responses``, ``responses-stream``, ``messages`` or ``messages-stream``; a MISBEHAVIOUR
(``hang``, ``crash``, ``garbage``, ``flood``, ``daemon``, ``orphan``, ``fork-daemon``: a
forked copy of itself that leaves the session and never execs, ``raise-tool``,
``refused``: it asks for two choices; ``env``: it answers with what it was given) makes it
break the protocol on purpose. Its Tools come from the harness's MCP server; its loop is the
usual one: call the model, run the Tool calls it asks for, until it answers in text.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

TOKEN = os.environ.get("OPENAI_API_KEY", "")
MCP_TOKEN = os.environ.get("EVAL_MCP_TOKEN", "")  # its own name: the model key stays with the model
MODEL = os.environ.get("EVAL_MODEL", "")
MISBEHAVIOUR = sys.argv[2] if len(sys.argv) > 2 else None


def _sse(text: str) -> list[dict[str, Any]]:
    return [
        json.loads(line[6:])
        for line in text.splitlines()
        if line.startswith("data: ") and line[6:] != "[DONE]"
    ]


async def _chat(
    http: httpx.AsyncClient, stream: bool, system: str, history: list[Any], tools: list[Any]
) -> tuple[str | None, list[tuple[str, str, Any]]]:
    body: dict[str, Any] = {
        "model": MODEL,
        "messages": [{"role": "system", "content": system}, *history],
    }
    body["tools"] = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.inputSchema},
        }
        for t in tools
    ]
    if stream:
        body["stream"] = True
    if MISBEHAVIOUR == "refused":
        body["n"] = 2
    reply = await http.post(os.environ["OPENAI_BASE_URL"] + "/chat/completions", json=body)
    reply.raise_for_status()
    if not stream:
        message = reply.json()["choices"][0]["message"]
        calls = [
            (c["id"], c["function"]["name"], c["function"]["arguments"])
            for c in message.get("tool_calls") or ()
        ]
    else:
        text = ""
        calls_by: dict[int, list[str]] = {}
        for chunk in _sse(reply.text):
            for choice in chunk["choices"]:
                delta = choice["delta"]
                text += delta.get("content") or ""
                for call in delta.get("tool_calls") or ():
                    at = calls_by.setdefault(call["index"], ["", "", ""])
                    at[0] = call.get("id") or at[0]
                    at[1] = (call.get("function") or {}).get("name") or at[1]
                    at[2] += (call.get("function") or {}).get("arguments") or ""
        message = {"role": "assistant", "content": text or None}
        calls = [tuple(v) for _, v in sorted(calls_by.items())]  # type: ignore[misc]
        if calls:
            message["tool_calls"] = [
                {"id": c, "type": "function", "function": {"name": n, "arguments": a}}
                for c, n, a in calls
            ]
    history.append(message)
    return message.get("content"), [(c, n, json.loads(a)) for c, n, a in calls]


async def _responses(
    http: httpx.AsyncClient, stream: bool, system: str, history: list[Any], tools: list[Any]
) -> tuple[str | None, list[tuple[str, str, Any]]]:
    body: dict[str, Any] = {
        "model": MODEL,
        "instructions": system,
        "input": history,
        "stream": stream,
    }
    body["tools"] = [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.inputSchema,
            "strict": False,
        }
        for t in tools
    ]
    reply = await http.post(os.environ["OPENAI_BASE_URL"] + "/responses", json=body)
    reply.raise_for_status()
    if stream:
        output = next(
            e["response"]["output"] for e in _sse(reply.text) if e["type"] == "response.completed"
        )
    else:
        output = reply.json()["output"]
    history.extend(output)
    text = (
        "".join(p["text"] for item in output if item["type"] == "message" for p in item["content"])
        or None
    )
    calls = [
        (i["call_id"], i["name"], json.loads(i["arguments"]))
        for i in output
        if i["type"] == "function_call"
    ]
    return text, calls


async def _messages(
    http: httpx.AsyncClient, stream: bool, system: str, history: list[Any], tools: list[Any]
) -> tuple[str | None, list[tuple[str, str, Any]]]:
    body: dict[str, Any] = {
        "model": MODEL,
        "system": system,
        "max_tokens": 512,
        "messages": history,
        "stream": stream,
    }
    body["tools"] = [
        {"name": t.name, "description": t.description, "input_schema": t.inputSchema} for t in tools
    ]
    headers = {"x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"}
    reply = await http.post(
        os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", json=body, headers=headers
    )
    reply.raise_for_status()
    if not stream:
        blocks = reply.json()["content"]
    else:
        blocks = []
        for event in _sse(reply.text):
            if event["type"] == "content_block_start":
                blocks.append(dict(event["content_block"]))
            elif event["type"] == "content_block_delta":
                delta = event["delta"]
                if delta["type"] == "text_delta":
                    blocks[-1]["text"] += delta["text"]
                else:
                    blocks[-1]["input"] = json.loads(delta["partial_json"])
    history.append({"role": "assistant", "content": blocks})
    text = "".join(b["text"] for b in blocks if b["type"] == "text") or None
    return text, [(b["id"], b["name"], b["input"]) for b in blocks if b["type"] == "tool_use"]


def _result_turn(wire: str, results: list[tuple[str, str]]) -> list[Any]:
    if wire.startswith("chat"):
        return [{"role": "tool", "tool_call_id": c, "content": r} for c, r in results]
    if wire.startswith("responses"):
        return [{"type": "function_call_output", "call_id": c, "output": r} for c, r in results]
    return [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": c, "content": r} for c, r in results
            ],
        }
    ]


def _leave_behind(misbehaviour: str) -> None:
    """A grandchild that leaves the process group (daemon) or stays in it (orphan), or a forked
    copy of this process that leaves the session and never execs (fork-daemon)."""
    if misbehaviour == "fork-daemon":
        if os.fork() == 0:
            os.setsid()
            time.sleep(3600)
            os._exit(0)
        return
    code = (
        "import os,time\nos.setsid()\ntime.sleep(3600)"
        if misbehaviour == "daemon"
        else "import time; time.sleep(3600)"
    )
    subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=False,
    )


async def main(wire: str, misbehaviour: str | None) -> None:
    document = json.loads(sys.stdin.read())
    if misbehaviour == "env":  # what it was given: its environment, its stdin, where it runs
        given = {"env": dict(os.environ), "stdin": document, "cwd": os.getcwd()}
        print(json.dumps({"answer": json.dumps(given), "status": "completed"}))
        return
    if misbehaviour == "give-up":  # its loop's own words for a limit the harness has no name for
        print(json.dumps({"answer": "", "status": "failed", "reason": "MaxTurnsExceeded: 8"}))
        return
    if misbehaviour == "hang":
        time.sleep(3600)
    if misbehaviour == "crash":
        print("agent: the desk exploded", file=sys.stderr)
        sys.exit(3)
    if misbehaviour == "garbage":
        print("Thinking... here is my answer: 42")
        return
    if misbehaviour == "flood":
        while True:
            sys.stdout.write("x" * 65536)
    if misbehaviour in ("daemon", "orphan", "fork-daemon"):
        _leave_behind(misbehaviour)
    step = {"chat": _chat, "responses": _responses, "messages": _messages}[
        wire.split("-", maxsplit=1)[0]
    ]
    stream = wire.endswith("-stream")
    history: list[Any] = [
        {"role": m["role"], "content": m["content"]} for m in document["messages"]
    ]
    headers = {"Authorization": f"Bearer {MCP_TOKEN}"}
    async with (
        httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http,
        streamablehttp_client(os.environ["EVAL_MCP_URL"], headers=headers) as (read, write, _),
        ClientSession(read, write) as tools_session,
    ):
        await tools_session.initialize()
        tools = (await tools_session.list_tools()).tools
        for _ in range(8):
            text, calls = await step(http, stream, "You are the probe agent.", history, tools)
            if not calls:
                print(json.dumps({"answer": text or "", "status": "completed"}))
                return
            results = []
            for call_id, name, arguments in calls:
                if misbehaviour == "raise-tool":
                    raise RuntimeError(f"the agent's own code failed calling {name}")
                result = await tools_session.call_tool(name, arguments)
                text = "".join(getattr(b, "text", "") for b in result.content)
                # as SDKs relay an MCP error result: its text, marked an error
                results.append((call_id, f"error: {text}" if result.isError else text))
            history.extend(_result_turn(wire, results))
    print(json.dumps({"answer": "", "status": "failed", "reason": "iteration_limit"}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
