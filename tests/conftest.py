"""Cross-package fixtures: the real plug-in set, the real Host, a temporary Corpus."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from eval_core._loading.corpus import Corpus, Loader
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet, load_plugins
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding

ROOT = Path(__file__).resolve().parent.parent
SOUL = ROOT / "corpus" / "soul"


@pytest.fixture(scope="session")
def plugins() -> PluginSet:
    return load_plugins()


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    """An empty Corpus directory beside a copy of the real Eval Soul."""
    directory = tmp_path / "corpus"
    directory.mkdir()
    shutil.copytree(SOUL, directory / "soul")
    return directory


@pytest.fixture
def host(plugins: PluginSet, corpus_dir: Path) -> Host:
    return plugins.hosts["agent-runtime"](corpus_dir / "soul")


@pytest.fixture
def loader(plugins: PluginSet, host: Host) -> Loader:
    return Loader(plugins, host, judge="no-judge")


def minimal_case(case_id: str = "c", **overrides: Any) -> dict[str, Any]:
    """A small valid L2 Case; tests override one field at a time."""
    case: dict[str, Any] = {
        "id": case_id,
        "tier": "l2",
        "agent": "support",
        "input": [{"role": "user", "content": "Where is my order of tulip bulbs?"}],
        "script": [{"kind": "text", "text": "Your tulip bulbs ship within 2 business days."}],
        "expect": [{"kind": "output_contains", "text": "tulip bulbs"}],
    }
    case.update(overrides)
    return case


WriteCase = Callable[..., Path]


@pytest.fixture
def write_case(corpus_dir: Path) -> WriteCase:
    def write(case: dict[str, Any] | str | bytes, name: str | None = None) -> Path:
        if isinstance(case, dict):
            name = name or f"{case.get('id', 'c')}.json"
            data = json.dumps(case, indent=2)
        else:
            assert name is not None
            data = case if isinstance(case, str) else case.decode()
        path = corpus_dir / name
        path.write_text(data)
        return path

    return write


class ScriptedVendor:
    """A real HTTP server on 127.0.0.1 that answers as each Case's script says, speaking the
    OpenAI wire (``/chat/completions``) or the Anthropic wire (``/messages``).

    It finds the Case by the first text of the first user message and the step by how many
    assistant turns the request already holds, so a real-binding Sweep (HTTP, retries, usage,
    billing) runs the real Corpus deterministically. ``wrong`` lists Case ids it answers badly,
    to make two models disagree; ``replies`` gives a Case the one step this model always answers
    with. ``bodies`` keeps every request body it received.
    """

    def __init__(
        self,
        cases: list[dict[str, Any]],
        wrong: frozenset[str] = frozenset(),
        replies: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests = 0
        self.bodies: list[dict[str, Any]] = []
        table = {}
        for case in cases:
            first = next(m for m in case["input"] if m["role"] == "user")
            prior = sum(m["role"] == "assistant" for m in case["input"])
            content = first["content"]
            if not isinstance(content, str):
                content = "\n".join(p["text"] for p in content if p.get("type") == "text")
            table[content] = (case["id"], prior, case["script"])
        vendor = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                vendor.requests += 1
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                vendor.bodies.append(body)
                messages = body["messages"]
                first = next(m for m in messages if m["role"] == "user")
                case_id, prior, steps = table[_first_text(first["content"])]
                index = sum(m["role"] == "assistant" for m in messages) - prior
                step = steps[min(index, len(steps) - 1)]
                if case_id in wrong:
                    step = {"kind": "text", "text": "I am not sure."}
                step = (replies or {}).get(case_id, step)
                anthropic = self.path.endswith("/messages")
                reply = (_message if anthropic else _completion)(body["model"], step)
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _first_text(content: Any) -> str:
    """A request's user text: the string, or the first text part (either wire's spelling)."""
    if isinstance(content, str):
        return content
    return next(p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text")


def _completion(model: str, step: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    if step["kind"] == "text":
        message["content"] = step["text"]
    elif step["kind"] == "structured":
        message["content"] = json.dumps(step["value"])
    else:
        finish = "tool_calls"
        message["content"] = step.get("text")
        message["tool_calls"] = [
            {
                "id": call["callId"],
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call.get("arguments", {})),
                },
            }
            for call in step["calls"]
        ]
    return {
        "id": "cmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def _message(model: str, step: dict[str, Any]) -> dict[str, Any]:
    """The same step as an Anthropic Messages reply."""
    content: list[dict[str, Any]] = []
    text = json.dumps(step["value"]) if step["kind"] == "structured" else step.get("text")
    if text:
        content.append({"type": "text", "text": text})
    for call in step.get("calls", ()) if step["kind"] == "tool_calls" else ():
        content.append(
            {"type": "tool_use", "id": call["callId"], "name": call["name"],
             "input": call.get("arguments", {})}
        )  # fmt: skip
    return {
        "id": "msg-1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if step["kind"] == "tool_calls" else "end_turn",
        "usage": {"input_tokens": 100, "output_tokens": 20},
    }


@pytest.fixture
def real_host(plugins: PluginSet) -> Iterator[Host]:
    """The reference runtime over the shipped Eval Soul."""
    host = plugins.hosts["agent-runtime"](SOUL)
    yield host
    host.close()


@pytest.fixture
def corpus(plugins: PluginSet, real_host: Host) -> Corpus:
    """The shipped capability Corpus, loaded through the real Host."""
    return Loader(plugins, real_host, judge="no-judge").load(ROOT / "corpus")


def outcomes(
    corpus: Corpus, host: Host, plugins: PluginSet, cases: Sequence[str]
) -> dict[str, str]:
    """Sweep the named Cases in-process on the scripted binding: each Trial's outcome."""
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=cases)
    return {t.case_id: t.outcome for t in card.trials}


def red(corpus: Corpus, host: Host, plugins: PluginSet, cases: Sequence[str]) -> None:
    """Every named Case fails (a mutation test's verdict)."""
    found = outcomes(corpus, host, plugins, cases)
    assert set(found) == set(cases), found
    assert all(outcome == "failed" for outcome in found.values()), found


class Site:
    """A directory on ``sys.path`` to install real distributions into: a module (or a
    package) plus a ``.dist-info`` with ``METADATA`` and ``entry_points.txt``, found by
    importlib-metadata like any install. ``env`` puts it on a subprocess's ``PYTHONPATH``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def install(
        self, dist: str, version: str, module: str, source: str, entry_point: str | None = None
    ) -> Path:
        import textwrap

        path = self.root / f"{module}.py"
        path.write_text(textwrap.dedent(source))
        info = self.root / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        (info / "entry_points.txt").write_text(
            f"[eval.plugins]\n{entry_point or module} = {module}\n"
        )
        return path

    def env(self) -> dict[str, str]:
        import os

        return {**os.environ, "PYTHONPATH": str(self.root)}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    """A site directory on ``sys.path`` for this test; its modules are forgotten after it."""
    import importlib
    import sys

    root = tmp_path / "site"
    root.mkdir()
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield Site(root)
    finally:
        sys.path.remove(str(root))
        for name in [
            m for m, mod in sys.modules.items() if str(root) in str(getattr(mod, "__file__", ""))
        ]:
            del sys.modules[name]
