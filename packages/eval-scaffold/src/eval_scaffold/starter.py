"""`eval init`: a starter Corpus for a team's agent, in the team's own project, green at once.

The agent and its Tools are learnt from the chosen Host itself (the Host imports the team's
app, or reads the reference runtime's Eval Soul), never guessed: the Cases name an agent the
Host has and Tools it offers. Four Cases use the common kinds (a Tool called with its call
count, a ``tool_not_called``, the question reaching the model, the loop's status); a Tool they
call is answered from the Case's ``toolResults``, so the starter never runs a team's Tool with
made-up arguments. Beside them: the ``[tool.eval]`` settings (appended to the project's
``pyproject.toml``, which is re-read whole before it is written, so an existing file is never
broken), ``eval.lock`` and a ``.gitignore`` entry for the outputs. Nothing is overwritten.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_core.commands import MAX_SETTINGS_BYTES
from eval_core.hosts import CaseBase, Host, Message, NotReadable, ToolDecl, read_regular

REFERENCE_HOST = "agent-runtime"
OUTPUTS = "scorecards/"
"""The Sweep's default output folder, kept out of the team's git tree."""


class InitRefused(Exception):  # noqa: N818 - it names an outcome
    """The project cannot take a starter Corpus as asked (nothing was written)."""


@dataclass
class Written:
    """What ``eval init`` did: the files it wrote, and the settings table when it could not
    add it to ``pyproject.toml`` itself (printed for the team to paste)."""

    files: list[Path] = field(default_factory=list)
    paste: str | None = None


def settings_table(corpus: str, host: str, app: str | None) -> str:
    lines = ["[tool.eval]", f"corpus = {json.dumps(corpus)}", f"host = {json.dumps(host)}"]
    if app is not None:
        lines.append(f"app = {json.dumps(app)}")
    return "\n".join(lines) + "\n"


def _existing(path: Path) -> str | None:
    """The text of a file of the team's that ``eval init`` adds to (``""`` when there is none),
    read through the bounded reader; ``None`` when it is there but no readable text file."""
    if not path.exists() and not path.is_symlink():
        return ""
    try:
        return read_regular(path, MAX_SETTINGS_BYTES).decode("utf-8")
    except (NotReadable, UnicodeDecodeError):
        return None


def add_settings(pyproject: Path, table: str) -> bool:
    """Append the table to ``pyproject`` (creating it); False when the file cannot take it
    safely (it has a ``[tool.eval]`` already, is not TOML, or would not parse after)."""
    text = _existing(pyproject)
    if text is None:
        return False
    try:
        existing = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    tool = existing.get("tool", {})
    if not isinstance(tool, dict) or "eval" in tool:
        return False
    joined = text + ("\n" if text and not text.endswith("\n") else "") + ("\n" if text else "")
    joined += "# The eval harness's settings (eval init): command-line flags win.\n" + table
    try:
        tomllib.loads(joined)
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    try:
        pyproject.write_text(joined, encoding="utf-8")
    except OSError:
        return False
    return True


def ignore_outputs(gitignore: Path) -> str | None:
    """Add the outputs folder to ``.gitignore`` unless it is there: the line saying what was
    done, or what to do by hand when the file cannot be read or written (the starter Corpus
    works either way); ``None`` when it was there already."""
    text = _existing(gitignore)
    by_hand = f"{gitignore}: not a writable text file: add {OUTPUTS} to it yourself"
    if text is None:
        return by_hand
    if any(line.strip().rstrip("/") == OUTPUTS.rstrip("/") for line in text.splitlines()):
        return None
    gap = "\n" if text and not text.endswith("\n") else ""
    try:
        gitignore.write_text(f"{text}{gap}{OUTPUTS}\n", encoding="utf-8")
    except OSError:
        return by_hand
    return f"wrote {OUTPUTS} to {gitignore}"


READING = ("get", "lookup", "look", "search", "find", "list", "read", "fetch", "check", "show")
"""First words of a Tool that only reads: the starter Case calls one of these when it can."""


def choose_tools(tools: Mapping[str, ToolDecl]) -> tuple[ToolDecl | None, ToolDecl | None]:
    """The Tool a starter Case calls (a reading one first: ``get_weather``, ``lookup_order``)
    and the one a greeting must not call (a mutating one, else one that does not read, such as
    ``book_trip``); both ``None`` for an agent without Tools."""
    if not tools:
        return None, None
    ordered = sorted(tools.values(), key=lambda t: t.name)

    def reads(tool: ToolDecl) -> bool:
        return not tool.mutating and tool.name.lower().split("_")[0] in READING

    call = next((t for t in ordered if reads(t)), None)
    call = call or next((t for t in ordered if not t.mutating), ordered[0])
    others = [t for t in ordered if t.name != call.name] or [call]
    avoid = next((t for t in others if t.mutating), None)
    avoid = avoid or next((t for t in others if not reads(t)), others[-1])
    return call, avoid


def sample_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A value for each required parameter of a Tool's input schema (its first enum value,
    its default, else a plain value of its type): a starting point the team edits."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    required = schema.get("required", [])
    samples: dict[str, Any] = {}
    for name in required if isinstance(required, list) else []:
        spec = properties.get(name, {})
        samples[str(name)] = _sample(spec if isinstance(spec, Mapping) else {})
    return samples


def _sample(spec: Mapping[str, Any]) -> Any:
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return spec["enum"][0]
    if "default" in spec:
        return spec["default"]
    kind = spec.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    values: dict[str, Any] = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
    return values.get(str(kind), "example")


def agent_tools(host: Host, agent: str) -> Mapping[str, ToolDecl]:
    """The Tools the Host offers ``agent`` with their schemas: its platform Tools, narrowed to
    what it says a Case for that agent is offered (``offered_tools``, when it can say)."""
    tools = host.platform_tools()
    offered = getattr(host, "offered_tools", None)
    if offered is None:
        return tools
    probe = CaseBase(
        id="eval-init-probe",
        tier="l2",
        agent=agent,
        input=[Message(role="user", content="Hello")],
        expect=[],
    )
    answer = offered(probe)
    names = getattr(answer, "names", None)
    if names is None:
        return tools
    return {name: tool for name, tool in tools.items() if name in names}


def choose_agent(agents: frozenset[str], asked: str | None) -> str | None:
    """The agent asked for, else the first the team named (the reference runtime's own
    ``__default__``-style agents come last)."""
    if asked is not None:
        return asked if asked in agents else None
    ordered = sorted(agents, key=lambda a: (a.startswith("_"), a))
    return ordered[0] if ordered else None


def cases(agent: str, tools: Mapping[str, ToolDecl], host: str) -> list[dict[str, Any]]:
    """The starter Cases for ``agent`` over the Tools it offers."""
    call, avoid = choose_tools(tools)
    declared = host == REFERENCE_HOST  # the runtime's own platform Tools are not the team's
    if declared:
        call = avoid = ToolDecl(
            name="lookup_order",
            input_schema={
                "type": "object",
                "properties": {"order_id": {"type": "string"}},
                "required": ["order_id"],
            },
            description="Look an order up by its id.",
        )

    def base(case_id: str, ask: str) -> dict[str, Any]:
        made: dict[str, Any] = {
            "id": case_id,
            "tier": "l2",
            "agent": agent,
            "input": [{"role": "user", "content": ask}],
        }
        if declared and call is not None:
            made["tools"] = [
                {"name": call.name, "inputSchema": call.input_schema,
                 "description": call.description}
            ]  # fmt: skip
        elif call is not None and avoid is not None:
            made["platformTools"] = sorted({call.name, avoid.name})
        return made

    greeting = base("a-greeting-calls-no-tool", "Hello! What can you help me with?")
    greeting["script"] = [{"kind": "text", "text": "Hello! I can help you with that."}]
    greeting["expect"] = [
        *([{"kind": "tool_not_called", "name": avoid.name}] if avoid is not None else []),
        {"kind": "output_contains", "text": "help"},
    ]
    question = base("the-question-reaches-the-model", "What are your opening hours?")
    question["script"] = [{"kind": "text", "text": "I am not sure of our opening hours."}]
    question["expect"] = [
        {"kind": "model_prompt_contains", "text": "opening hours"},
        {
            "kind": "output_omits",
            "text": "As an AI",
            "ungrounded": "a phrase the team never wants in an answer, whatever the model saw",
        },
    ]
    status = base("the-turn-completes", "Please answer in one short sentence.")
    status["script"] = [{"kind": "text", "text": "Here is one short sentence."}]
    status["expect"] = [
        {"kind": "loop_status", "status": "completed"},
        {"kind": "tool_call_count", "count": 0},
    ]
    made = [greeting, question, status]
    if call is not None:
        called = base(f"{call.name.replace('_', '-')}-is-called", f"Please use {call.name}.")
        called["toolResults"] = [{"name": call.name, "output": {"status": "ok"}}]
        called["script"] = [
            {"kind": "tool_calls", "calls": [
                {"callId": "c1", "name": call.name,
                 "arguments": sample_arguments(call.input_schema)}
            ]},
            {"kind": "text", "text": f"Done: I used {call.name}."},
        ]  # fmt: skip
        called["expect"] = [
            {"kind": "tool_called", "name": call.name},
            {"kind": "tool_call_count", "name": call.name, "count": 1},
            {"kind": "output_contains", "text": call.name},
        ]
        made.insert(0, called)
    return made


def write_cases(corpus: Path, made: Sequence[Mapping[str, Any]]) -> list[Path]:
    written = []
    for case in made:
        path = corpus / f"{case['id']}.json"
        path.write_text(json.dumps(case, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


def refuse_existing(corpus: Path) -> None:
    """Never write over a team's Corpus: the folder must be new, or empty."""
    if corpus.exists() and (not corpus.is_dir() or any(corpus.iterdir())):
        raise InitRefused(f"{corpus} already exists and is not an empty directory")


def undo(corpus: Path, created: bool) -> None:
    """Remove what ``eval init`` made of the Corpus folder after a refusal."""
    if created:
        shutil.rmtree(corpus, ignore_errors=True)
