"""One reader for everything untrusted (issue 45): no package reads a path, or decodes bytes,
but through :mod:`eval_core._util.input_files` (regular files only, never blocking, size-capped
before reading, depth-capped when decoding) and :mod:`eval_core._util.cache_entry`, save the
calls listed below, each with why it is not untrusted input. The next surface cannot forget:
a new ``open``/``read_bytes``/``read_text``/``json.load``/``msgspec.json.decode``/``yaml``/
``tomllib`` call fails this test until it reads through the bounded reader or is listed here
with its reason. ``agent-runtime`` is the reference runtime under test (its Soul reads are
bounded by ``agent_runtime.soul.files``), not the harness, and is not scanned."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGES = Path(__file__).resolve().parents[2]
NOT_SCANNED = {"agent-runtime"}

READS = {"open", "io.open", "os.open", "json.load", "tomllib.load", "yaml.load", "yaml.safe_load"}
READS |= {"yaml.full_load", "yaml.unsafe_load", "yaml.compose", "yaml.parse"}
DECODES = {"json.loads", "msgspec.json.decode", "msgspec.msgpack.decode", "tomllib.loads"}

# (file under packages/, enclosing function, call) -> why it is not an unbounded untrusted read.
ALLOWED: dict[tuple[str, str, str], str] = {
    # The bounded reader and the cache entry reader themselves.
    ("eval-core/src/eval_core/_util/input_files.py", "_open", "os.open"): "the reader",
    ("eval-core/src/eval_core/_util/input_files.py", "decode_json", "msgspec.json.decode"): (
        "the depth-checked decode"
    ),
    ("eval-core/src/eval_core/_util/cache_entry.py", "decode", "msgspec.json.decode"): (
        "a cache entry read by read_cache, depth-checked"
    ),
    ("eval-core/src/eval_core/_util/cache_entry.py", "decode", "msgspec.msgpack.decode"): (
        "a cache entry read by read_cache; RecursionError is a miss"
    ),
    # Bytes that came from the bounded reader, depth-checked before decoding.
    ("eval-core/src/eval_core/_loading/decode.py", "_raw", "msgspec.json.decode"): (
        "a Case file from read_regular, checked by check_json_depth first"
    ),
    ("eval-core/src/eval_core/_loading/decode.py", "_raw", "yaml.load"): (
        "a Case file from read_regular, checked by check_yaml (depth, aliases) first"
    ),
    ("eval-record/src/eval_record/rewrite.py", "_json", "json.loads"): (
        "a Case file from read_regular that the loader has just checked (size, depth)"
    ),
    ("eval-record/src/eval_record/rewrite.py", "_read", "msgspec.json.decode"): (
        "a Case file the loader has just checked, or the bytes rewrite made of it"
    ),
    ("eval-record/src/eval_record/rewrite.py", "_read", "yaml.load"): (
        "a Case file the loader has just checked (depth, aliases), or the bytes rewrite made"
    ),
    ("eval-core/src/eval_core/_plugins/lock.py", "seed", "msgspec.json.decode"): (
        "eval.lock from read_json_input (size and depth)"
    ),
    ("eval-core/src/eval_core/_plugins/lock.py", "read", "msgspec.json.decode"): (
        "eval.lock from read_json_input (size and depth)"
    ),
    ("eval-core/src/eval_core/_plugins/lock.py", "_version", "msgspec.json.decode"): (
        "eval.lock from read_json_input (size and depth)"
    ),
    ("eval-core/src/eval_core/_recording/log_records.py", "read", "msgspec.json.decode"): (
        "a trial log from read_regular, each line depth-checked"
    ),
    ("eval-release/src/eval_release/baseline.py", "read", "msgspec.json.decode"): (
        "a Baseline from read_json_input (size and depth)"
    ),
    ("eval-release/src/eval_release/baseline.py", "read_saved", "msgspec.json.decode"): (
        "a saved Scorecard from read_json_input (size and depth)"
    ),
    ("eval-release/src/eval_release/baseline.py", "_counted", "msgspec.json.decode"): (
        "a saved Scorecard or Baseline from read_json_input (size and depth), its Trials counted"
    ),
    ("eval-core/src/eval_core/_recording/log_records.py", "is_trial_log", "msgspec.json.decode"): (
        "the first line of a file read by read_regular, depth-checked first"
    ),
    ("eval-bindings/src/eval_bindings/listing.py", "groups", "json.loads"): (
        "a /models answer streamed no further than MAX_BYTES, depth-checked first"
    ),
    ("eval-bindings/src/eval_bindings/wire/transport.py", "_refuses_request", "json.loads"): (
        "the first 64 KiB of an error body the transport read under its cap, depth-checked"
    ),
    ("eval-scaffold/src/eval_scaffold/starter.py", "add_settings", "tomllib.loads"): (
        "the team's pyproject.toml from read_regular (size); RecursionError is no settings"
    ),
    ("eval-local-model/src/eval_local_model/server.py", "LocalModel.start", ".open"): (
        "the server's log, a file this process creates in its own fresh temporary directory"
    ),
    ("eval-local-model/src/eval_local_model/server.py", "LocalModel.log", ".read_text"): (
        "the same log, written by the server this process started, read to report its failure"
    ),
    ("eval-local-model/src/eval_local_model/weights.py", "chat_template", ".read_text"): (
        "the package's own chat template (package data), not input"
    ),
    ("eval-bindings/src/eval_bindings/pins.py", "load_pins", "tomllib.loads"): (
        "a models file from read_regular (size); tomllib's RecursionError is refused"
    ),
    ("eval-host-process/src/eval_host_process/manifest.py", "read_manifest", "tomllib.loads"): (
        "the process Host's agents manifest from read_regular (size); RecursionError refused"
    ),
    ("eval-host-process/src/eval_host_process/wire.py", "loads", "json.loads"): (
        "an agent's request body, answer or Tool result, bounded where received, depth-checked"
    ),
    ("eval-host-process/src/eval_host_process/process.py", "_proc", "open"): (
        "/proc (the OS), read to end an agent's processes, at most 1 MiB"
    ),
    # The fork-server's zygote runs in the team's own interpreter, not in the harness: what it
    # reads is the team's, for the team's process; the harness reads none of it.
    ("eval-host-process/src/eval_host_process/zygote.py", "warm", "open"): (
        "the agent's own module, by the team's interpreter, for its imports; at most 4 MiB"
    ),
    ("eval-host-process/src/eval_host_process/zygote.py", "_receive", "json.loads"): (
        "the harness's own request for a Trial, in the zygote; at most 1 MiB"
    ),
    ("eval-host-process/src/eval_host_process/zygote.py", "main", "os.open"): (
        "os.devnull, opened to write, in the zygote"
    ),
    (
        "eval-host-agent-runtime/src/eval_host_agent_runtime/soul_cache.py",
        "_read",
        "msgspec.msgpack.decode",
    ): ("a Soul cache entry from read_cache_entry; RecursionError is a miss"),
    (
        "eval-host-agent-runtime/src/eval_host_agent_runtime/soul_cache.py",
        "_soul",
        "msgspec.msgpack.decode",
    ): ("the routines of an entry already decoded under its key (types bound the depth)"),
    (
        "eval-host-agent-runtime/src/eval_host_agent_runtime/soul_cache.py",
        "_decoded",
        "msgspec.msgpack.decode",
    ): ("what this process just encoded, decoded to check it round-trips"),
    # Replies and values in memory, bounded where they are received (not files).
    ("eval-bindings/src/eval_bindings/wire/openai.py", "_arguments_of", "json.loads"): (
        "a model reply's arguments, within the wire's max_response_bytes"
    ),
    ("eval-bindings/src/eval_bindings/wire/openai.py", "_tool_call", "json.loads"): (
        "a model reply's arguments, within the wire's max_response_bytes"
    ),
    ("eval-bindings/src/eval_bindings/wire/transport.py", "post_json", "json.loads"): (
        "a reply body read up to the wire's max_response_bytes"
    ),
    ("eval-core/src/eval_core/_recording/transcript.py", "encode", "msgspec.json.decode"): (
        "JSON this process just encoded, to clean it"
    ),
    ("eval-core/src/eval_core/_util/limits.py", "_json_path_at_depth", "json.loads"): (
        "one string token of a document being depth-checked"
    ),
    ("eval-core/src/eval_core/_util/paths.py", "_parse", "msgspec.json.decode"): (
        "a model's answer text held in memory, for a dot path"
    ),
    ("eval-expectations-mcp/src/eval_expectations_mcp/setup.py", "Provider._count", "json.loads"): (
        "the harness's own 127.0.0.1 test server's answer"
    ),
    (
        "eval-expectations-redteam/src/eval_expectations_redteam/strategies.py",
        "_variant",
        "json.loads",
    ): ("a deep copy of a decoded Case (json.loads(json.dumps(doc)))"),
    (
        "eval-expectations-mcp/src/eval_expectations_mcp/provider.py",
        "_answered",
        "json.loads",
    ): ("a request body the harness's own MCP test server received, in its own process"),
    (
        "eval-expectations-routine/src/eval_expectations_routine/provider.py",
        "Scenario.answer",
        "json.loads",
    ): ("a request body the harness's own provider double received"),
    (
        "eval-host-agent-runtime/src/eval_host_agent_runtime/channels.py",
        "_admission",
        "json.loads",
    ): ("rows the runtime wrote to its own database this Trial"),
    (
        "eval-core/src/eval_core/_case/previews.py",
        "preview_value",
        "json.loads",
    ): ("a preview a runtime's event carried in memory"),
    (
        "eval-report/src/eval_report/saved.py",
        "Saved._recorded",
        "msgspec.json.decode",
    ): (
        "a prompt line of a side file read by the transcripts' Reader (bounded, checked "
        "against its SHA-256); decoded as a string, which nests nothing"
    ),
    (
        "eval-report/src/eval_report/transcripts.py",
        "_prompt",
        "msgspec.json.decode",
    ): (
        "a prompt line of a side file read whole by read_regular and checked against its "
        "SHA-256; decoded as a string, which nests nothing"
    ),
    (
        "eval-core/src/eval_core/_case/previews.py",
        "preview_value",
        "msgspec.json.decode",
    ): ("a preview a runtime's event carried in memory"),
    (
        "eval-host-agent-runtime/src/eval_host_agent_runtime/l3_readback.py",
        "ReadBack.turn",
        "json.loads",
    ): ("rows the runtime wrote to its own database this Trial"),
    (
        "eval-host-agent-runtime/src/eval_host_agent_runtime/l3_readback.py",
        "ReadBack.evidence",
        "json.loads",
    ): ("the runtime's structured output text, held in memory"),
    ("eval-host-langgraph/src/eval_host_langgraph/trial.py", "_output", "json.loads"): (
        "the graph's answer text, held in memory"
    ),
    ("eval-executor-ray/src/eval_executor_ray/bundle.py", "unpack", "msgspec.msgpack.decode"): (
        "a bundle this Sweep packed and shipped to its own worker"
    ),
    (
        "eval-executor-ray/src/eval_executor_ray/worker.py",
        "TrialWorker._prepare",
        "msgspec.json.decode",
    ): ("the lock bytes this Sweep shipped to its own worker"),
    # Files the harness writes or owns, not input.
    ("eval-core/src/eval_core/_recording/transcript.py", "Pack.create", ".open"): (
        "creates this Sweep's transcript pack (exclusive create)"
    ),
    ("eval-core/src/eval_core/_recording/transcript.py", "Pack.resume", "os.open"): (
        "appends to a pack read first by read_regular"
    ),
    ("eval-core/src/eval_core/_recording/triallog.py", "TrialLog.create", ".open"): (
        "creates this Sweep's trial log (exclusive create)"
    ),
    ("eval-core/src/eval_core/_recording/triallog.py", "TrialLog.resume", ".open"): (
        "appends to a trial log read first by read_regular"
    ),
    ("eval-core/src/eval_core/_util/atomic.py", "umask", "open"): "/proc/self/status (the OS)",
    ("eval-kit/src/eval_kit/host_conformance.py", "_children", ".read_text"): (
        "/proc (the OS), in a plug-in author's conformance test"
    ),
    ("eval-kit/src/eval_kit/conformance.py", "schema_problems", ".read_bytes"): (
        "a plug-in author's own snapshot, in their test run"
    ),
    ("eval-scaffold/src/eval_scaffold/scaffold.py", "_template", ".read_text"): "package data",
    (
        "eval-expectations-redteam/src/eval_expectations_redteam/strategies.py",
        "translations",
        ".read_text",
    ): ("package data"),
    (
        "eval-expectations-redteam/src/eval_expectations_redteam/strategies.py",
        "translations",
        "json.loads",
    ): ("package data"),
    ("eval-executor-ray/src/eval_executor_ray/bundle.py", "pack", ".read_bytes"): (
        "the Soul, lock and Case files this Sweep's loader already read and checked"
    ),
    ("eval-core/src/eval_core/_util/project.py", "_table", "tomllib.loads"): (
        "the project's settings from read_with_status (size, owner); RecursionError refused"
    ),
    ("eval-cli/src/eval_cli/streams.py", "_reopen_closed", "os.open"): "/dev/null",
    ("eval-cli/src/eval_cli/streams.py", "_silence", "os.open"): "/dev/null",
}


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class _Calls(ast.NodeVisitor):
    """Each read or decode call of a module, by its enclosing function's qualified name."""

    def __init__(self, rel: str) -> None:
        self.rel, self.scope, self.found = rel, list[str](), list[tuple[str, str, str]]()

    def _enter(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._enter(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._enter(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._enter(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        what: str | None = None
        if name in READS or name in DECODES:
            what = name
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("read_bytes", "read_text"):
            what = f".{node.func.attr}"
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "open":
            first = node.args[0] if node.args else None  # path.open() / path.open("rb")
            if first is None or (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                what = ".open"
        if what is not None:
            self.found.append((self.rel, ".".join(self.scope) or "<module>", what))
        self.generic_visit(node)


def _scanned() -> Counter[tuple[str, str, str]]:
    found: Counter[tuple[str, str, str]] = Counter()
    for package in sorted(PACKAGES.iterdir()):
        source = package / "src"
        if package.name in NOT_SCANNED or not source.is_dir():
            continue
        for path in sorted(source.rglob("*.py")):
            calls = _Calls(path.relative_to(PACKAGES).as_posix())
            calls.visit(ast.parse(path.read_text(encoding="utf-8")))
            found.update(calls.found)
    return found


def test_every_read_of_a_path_goes_through_the_bounded_reader() -> None:
    found = _scanned()
    unlisted = sorted(set(found) - set(ALLOWED))
    assert not unlisted, (
        "read or decode outside the bounded reader (eval_core._util.input_files): read the "
        "file with read_regular/read_json_input/read_cache_entry, or list the call in ALLOWED "
        "with why it is not untrusted input:\n" + "\n".join(map(str, unlisted))
    )


def test_every_listed_call_still_exists() -> None:
    stale = sorted(set(ALLOWED) - set(_scanned()))
    assert not stale, "ALLOWED lists calls that are gone (remove them):\n" + "\n".join(
        map(str, stale)
    )


def test_the_scan_sees_a_new_read() -> None:
    calls = _Calls("x.py")
    code = "def f(p):\n    open(p)\n    p.read_bytes()\n    json.load(p)\n    p.open('rb')\n"
    calls.visit(ast.parse(code))
    assert [c[2] for c in calls.found] == ["open", ".read_bytes", "json.load", ".open"]
