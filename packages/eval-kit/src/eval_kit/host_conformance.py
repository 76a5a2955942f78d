"""What every Host must hold, checked by running standard probe Cases through it.

A Host is another team's code behind the port (:class:`eval_core.hosts.Host`); the kit cannot
read it, so it probes it the way a Sweep uses it: real Cases through the real loader, the
scripted binding, the core's own witness checks. The probe binding changes what the model
says on the way (a nonce in the Tool arguments and the answer) so that Evidence copied from
the Case, instead of read back from the Host's own Tool boundary and answer, shows (the nonce
goes into the first string argument, so a strict schema still accepts the call). Then:

- **witnesses**: the Tool received the arguments the model sent, not the Case's; a Tool the
  model did not call is observed as not called (``[]``, not ``None``, not the Case's
  ``toolResults``); the answer is the model's, the Evidence of its tier; testimony uncontradicted;
- **services**: every class :meth:`Host.services` declares at a tier is offered by a Trial
  of that tier, exactly once;
- **faults**: a model port that raises, and an agent whose own code raises, error the Trial
  with one line, never a traceback, a crash of the Sweep or a verdict;
- **names**: :meth:`Host.offered_tools` lists the probe's Tool for its Case, and a Case naming
  a Tool the agent lacks (a misspelt ``tool_not_called``) is refused at load, so no
  Expectation passes on a name that cannot occur;
- **close**: after ``close()`` nothing the Host opened is left: no thread still running, no
  file, socket or pipe still open, no child process (measured after a warm-up round, so a
  library's one-time set-up is not counted).
"""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from eval_core.commands import run_sweep
from eval_core.hosts import (
    CaseBase,
    CorpusError,
    Evidence,
    Host,
    Loader,
    ModelCallRequest,
    ModelReply,
    ModelToolCall,
    PluginSet,
    ScriptedBinding,
    ScriptedSession,
    service_mismatch,
)
from eval_core.records import Scorecard
from eval_kit.names_conformance import name_problems

NONCE = "probe-nonce-5f1c"
"""What the probe binding adds to the model's Tool arguments and answer: never in a Case."""
SETTLE_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class HostProbe:
    """How the conformance check reaches one Host.

    ``factory`` makes the Host over a Soul directory (the kit writes a minimal one holding the
    agent ``assistant``); pass options with :func:`functools.partial`. ``agent`` is the agent
    the probes address and ``tool`` a Tool it may call with ``arguments``: by default a Tool
    the Case declares (``tools``); with ``platform`` one of the Host's own (``platformTools``).
    ``raising_agent`` is an agent whose own code raises during its run, when the Host has
    one; ``raising_tool`` a Tool of it the probe asks for (unscripted, so the real one runs).
    ``tiers`` (the tiers probed) default to the Host's own ``tiers``, which the contract asks.
    """

    factory: Callable[[Path], Host]
    agent: str = "assistant"
    tool: str = "probe_lookup"
    platform: bool = False
    arguments: Mapping[str, Any] = field(default_factory=lambda: {"query": "order 7"})
    raising_agent: str | None = None
    raising_tool: str | None = None
    tiers: Sequence[str] | None = None


def host_problems(probe: HostProbe, plugins: PluginSet, directory: Path) -> list[str]:
    """Every way the Host breaks the contract, one line each (``[]``: it conforms)."""
    directory.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    _round(probe, plugins, directory / "warm-up", [])  # one-time set-up is not a leak
    before = _open_now()
    _round(probe, plugins, directory / "probe", problems)
    problems += _left_open(before)
    return problems


def _round(probe: HostProbe, plugins: PluginSet, directory: Path, problems: list[str]) -> None:
    from eval_kit.testing import Agent, write_soul

    agents = {probe.agent: Agent()}
    if probe.raising_agent is not None:
        agents[probe.raising_agent] = Agent()
    write_soul(directory / "soul", agents)
    host = probe.factory(directory / "soul")
    try:
        tiers = _tiers(probe, host, problems)
        for tier in tiers:
            _probe_tier(probe, plugins, host, directory / f"corpus-{tier}", tier, problems)
    finally:
        try:
            host.close()
        except Exception as exc:
            problems.append(f"close: the Host raised {type(exc).__name__}: {exc}")


def _tiers(probe: HostProbe, host: Host, problems: list[str]) -> list[str]:
    declared = probe.tiers if probe.tiers is not None else getattr(host, "tiers", None)
    tiers = sorted(str(t) for t in declared or ())
    if not tiers or any(t not in ("l2", "l3") for t in tiers):
        said = repr(tiers) if declared is not None else "none"
        problems.append(f"tiers: the Host declares {said}; a Host offers l2 and/or l3")
    return [t for t in tiers if t in ("l2", "l3")]


def _probe_tier(
    probe: HostProbe,
    plugins: PluginSet,
    host: Host,
    directory: Path,
    tier: str,
    problems: list[str],
) -> None:
    cases = _cases(probe, tier)
    corpus = directory  # beside the round's soul/, where the loader finds it
    corpus.mkdir(parents=True)
    for case in cases:
        (corpus / f"{case['id']}.json").write_bytes(msgspec.json.encode(case))
    try:
        loaded = Loader(plugins, host, judge="no-judge").load(corpus)
    except CorpusError as exc:
        problems.extend(f"{tier} load: {p.path}: {p.reason}" for p in exc.problems)
        return
    at = f"{tier} "
    _check_services(host, loaded.cases[0], tier, problems)
    witnessed = next(c for c in loaded.cases if c.id == "probe-tool-witnessed")
    idle = _cases(probe, tier)[1]  # the no-Tool probe: a misspelt name goes in its expect
    names = directory.parent / f"names-{tier}"
    problems += name_problems(probe.agent, probe.tool, plugins, host, witnessed, idle, names, at)
    seen: dict[str, Evidence] = {}
    card = run_sweep(
        loaded,
        host,
        _AlteringBinding(raising=frozenset({"probe-model-raises"})),
        plugins,
        on_evidence=lambda case, evidence: seen.__setitem__(case.id, evidence),
    )
    trials = {t.case_id: t for t in card.trials}
    _check_witnessed(trials, seen, probe, at, problems)
    _check_errored(card, at, problems)


def _cases(probe: HostProbe, tier: str) -> list[dict[str, Any]]:
    declared = (
        {"platformTools": [probe.tool]}
        if probe.platform
        else {
            "tools": [
                {
                    "name": probe.tool,
                    "description": "Look an order up by its query.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {k: {"type": "string"} for k in probe.arguments},
                    },
                }
            ]
        }
    )
    scripted = [{"name": probe.tool, "output": {"found": "order 7 shipped"}}]
    ask = [{"role": "user", "content": "Where is order 7?"}]
    call = [{"callId": "c1", "name": probe.tool, "arguments": dict(probe.arguments)}]
    base = {"tier": tier, "agent": probe.agent, "input": ask, **declared, "toolResults": scripted}
    cases: list[dict[str, Any]] = [
        {
            **base,
            "id": "probe-tool-witnessed",
            "script": [
                {"kind": "tool_calls", "calls": call},
                {"kind": "text", "text": "Order 7 has shipped."},
            ],
            "expect": [
                {"kind": "tool_called", "name": probe.tool},
                {"kind": "loop_status", "status": "completed"},
            ],
        },
        {
            **base,
            "id": "probe-nothing-called",
            "script": [{"kind": "text", "text": "I can look that up for you."}],
            "expect": [{"kind": "tool_not_called", "name": probe.tool}],
        },
        {
            **base,
            "id": "probe-model-raises",
            "script": [{"kind": "text", "text": "Never sent."}],
            "expect": [{"kind": "loop_status", "status": "completed"}],
        },
    ]
    if probe.raising_agent is not None:
        steps: list[dict[str, Any]] = [{"kind": "text", "text": "Done."}]
        if probe.raising_tool is not None:
            raising = [{"callId": "r1", "name": probe.raising_tool, "arguments": {}}]
            steps.insert(0, {"kind": "tool_calls", "calls": raising})
        cases.append(
            {
                "id": "probe-agent-raises",
                "tier": tier,
                "agent": probe.raising_agent,
                "input": ask,
                "script": steps,
                "expect": [{"kind": "loop_status", "status": "completed"}],
            }
        )
    return cases


def _check_services(host: Host, case: CaseBase, tier: str, problems: list[str]) -> None:
    declared: list[Any] = list(host.services(tier))  # type: ignore[arg-type]  # "l2"/"l3"
    trial = host.open_trial(case, ScriptedBinding().session(case), 1)
    try:
        offered: list[Any] = list(trial.services())
    finally:
        trial.close()
    for wanted in declared:
        matching = [
            s for s in offered if isinstance(s, wanted) or service_mismatch(type(s), wanted) is None
        ]
        if len(matching) != 1:
            problems.append(
                f"{tier} services: the Host declares {wanted.__name__}, but a Trial offers "
                f"{len(matching)} matching service(s)"
            )


def _check_witnessed(
    trials: Mapping[str, Any],
    seen: Mapping[str, Evidence],
    probe: HostProbe,
    at: str,
    problems: list[str],
) -> None:
    witnessed, evidence = trials.get("probe-tool-witnessed"), seen.get("probe-tool-witnessed")
    if witnessed is None or evidence is None:
        problems.append(f"{at}witnesses: the Tool probe read back no Evidence")
        return
    if witnessed.outcome != "passed":
        why = witnessed.error or "; ".join(
            [e.detail for e in witnessed.expectations if not e.passed] + witnessed.contradictions
        )
        problems.append(f"{at}witnesses: the Tool probe is {witnessed.outcome}: {why}")
    calls = evidence.tool_calls
    wanted = altered(dict(probe.arguments))
    if calls is None:
        problems.append(f"{at}witnesses: tool_calls is None: the Tool boundary is not observed")
    elif [c.name for c in calls] != [probe.tool] or calls[0].arguments != wanted:
        got = [(c.name, c.arguments) for c in calls]
        problems.append(
            f"{at}witnesses: the model sent {wanted!r} to the Tool, but Evidence holds "
            f"{got!r} (copied from the Case, not read at the Tool boundary?)"
        )
    if NONCE not in (evidence.output_text or ""):
        problems.append(
            f"{at}witnesses: the model answered with {NONCE!r}, but output_text is "
            f"{evidence.output_text!r} (not the Host's own answer?)"
        )
    if evidence.loop_status is None:
        problems.append(f"{at}witnesses: loop_status is None: the loop's end is not observed")
    if evidence.tier != at.strip():
        problems.append(f"{at}witnesses: the Trial's Evidence says tier {evidence.tier!r}")
    idle, nothing = trials.get("probe-nothing-called"), seen.get("probe-nothing-called")
    if idle is None or nothing is None or nothing.tool_calls != []:
        held = None if nothing is None else nothing.tool_calls
        problems.append(
            f"{at}witnesses: the model called no Tool, but tool_calls is {held!r} (it must be "
            "[] when the Tool boundary saw nothing)"
        )
    elif idle.outcome != "passed":
        problems.append(f"{at}witnesses: the no-Tool probe is {idle.outcome}: {idle.error}")


def _check_errored(card: Scorecard, at: str, problems: list[str]) -> None:
    for case_id in ("probe-model-raises", "probe-agent-raises"):
        trial = next((t for t in card.trials if t.case_id == case_id), None)
        if trial is None:
            continue
        error = trial.error or ""
        if trial.outcome != "errored" or not error:
            problems.append(f"{at}faults: {case_id} is {trial.outcome}, not errored with a line")
        elif "\n" in error or "Traceback" in error:
            problems.append(f"{at}faults: {case_id} errored with more than one line: {error!r}")


def altered(arguments: Any) -> Any:
    """The arguments with the nonce in them: appended to the first string value (a schema
    that allows no further key still accepts it), else as a key ``witness`` of its own."""
    if not isinstance(arguments, dict):
        return arguments
    changed = dict(arguments)
    for key, value in changed.items():
        if isinstance(value, str):
            changed[key] = f"{value} {NONCE}"
            return changed
    changed["witness"] = NONCE
    return changed


class _AlteringSession:
    """The Case's script, altered on the way as no Case could be: a nonce in the Tool
    arguments and the answer. Raises on its first call for the Cases in ``raising``."""

    def __init__(self, case: CaseBase, raising: bool, altering: bool) -> None:
        self._inner = ScriptedSession(case)
        self._raising = raising
        self._altering = altering
        self.usage = self._inner.usage
        self.retries = 0
        self.model_version: str | None = None
        self.sent = self._inner.sent
        self.replied = self._inner.replied
        self.calls = 0

    def complete(self, request: ModelCallRequest) -> ModelReply:
        if self._raising:
            raise RuntimeError("the probe's model port raised, as a broken transport would")
        reply = self._inner.complete(request)
        self.calls = self._inner.calls
        if not self._altering:  # the raising agent's Tool must be reached as the Case says
            return reply
        calls = [
            ModelToolCall(call_id=c.call_id, name=c.name, arguments=altered(c.arguments))
            for c in reply.tool_calls
        ]
        text = f"{reply.text} ({NONCE})" if reply.text and not calls else reply.text
        return msgspec.structs.replace(reply, text=text, tool_calls=calls)


class _AlteringBinding:
    model_id = "scripted"
    scripted = True

    def __init__(self, raising: frozenset[str]) -> None:
        self._raising = raising

    def session(self, case: CaseBase) -> _AlteringSession:
        return _AlteringSession(case, case.id in self._raising, case.id != "probe-agent-raises")


def _open_now() -> tuple[set[int], dict[str, str], set[int]]:
    threads = {t.ident for t in threading.enumerate() if t.ident is not None}
    return threads, _fds(), _children()


def _left_open(before: tuple[set[int], dict[str, str], set[int]]) -> list[str]:
    threads, fds, children = before
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        gc.collect()
        extra = [t for t in threading.enumerate() if t.ident not in threads and t.is_alive()]
        now = _fds()
        opened = {fd: target for fd, target in now.items() if fds.get(fd) != target}
        alive = _children() - children
        if not (extra or opened or alive) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    problems = [f"close: thread {t.name!r} still runs after close()" for t in extra]
    problems += [
        f"close: {target} (fd {fd}) still open after close()" for fd, target in opened.items()
    ]
    problems += [f"close: child process {pid} still runs after close()" for pid in sorted(alive)]
    return problems


def _fds() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
        try:
            found[name] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue  # the listing's own descriptor, closed already
    return found


def _children() -> set[int]:
    """Child processes of every thread of this process (a child belongs to its thread)."""
    found: set[int] = set()
    tasks = Path(f"/proc/{os.getpid()}/task")
    for task in tasks.iterdir() if tasks.is_dir() else ():
        try:
            found.update(int(pid) for pid in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue  # the thread ended while it was read
    return found
