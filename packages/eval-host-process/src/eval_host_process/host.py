"""A team's agent, in any language, as the system under test: ``--host process``.

:class:`ProcessHost` reads the agents manifest (:mod:`.manifest`) and, when the team serves
its own Tools, lists them from its server (:mod:`.team_tools`) once at load. Each Trial
(:class:`ProcessTrial`) starts a loopback server that is the agent's model and Tool server
(:mod:`.server`), runs the agent's command once under the protocol (:mod:`.protocol`,
:mod:`.process`) and reads back the Evidence: the answer and status from the agent's stdout,
the Tool calls from the harness's own MCP witness; the model requests are the binding's own
record. L2 only; no services.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from eval_core.hosts import (
    AgentTools,
    CaseBase,
    ContextRules,
    Evidence,
    HostOptionError,
    HostTrial,
    ModelSession,
    ScriptedTools,
    SettingsRefused,
    Tier,
    ToolDecl,
    find_project,
    number_option,
)
from eval_host_process import process
from eval_host_process.fork_server import ForkServers
from eval_host_process.manifest import DEFAULT, AgentSpec, Manifest, read_manifest
from eval_host_process.plugin import HOST_NAME
from eval_host_process.process import AgentError
from eval_host_process.protocol import PROTOCOL, answer_of, stdin_document
from eval_host_process.server import TrialServer
from eval_host_process.team_tools import TeamTools
from eval_host_process.tools import ToolDesk

TIMEOUT_SECONDS = 60.0
MAX_TIMEOUT = 86_400.0
DEADLINE_SLACK = 10.0  # the forked child's own deadline: ours always ends the agent first
BASE_ENV = ("PATH", "HOME", "LANG", "LC_ALL")
OPTIONS = ("agents", "command", "timeout", "pass_env", "tools_server", "start")
STARTS = ("fork-server", "spawn")
"""The Host's options (the factory's keywords), each also read from ``[tool.eval]``."""


@cache
def _code() -> str:
    import eval_host_process
    from eval_core.hosts import fingerprint

    return fingerprint("eval-host-process", eval_host_process).digest


def _env_names(value: object) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    names = str(value).replace(",", " ").split()
    for name in names:
        if not name.replace("_", "").isalnum():
            raise HostOptionError(f"pass_env: {name!r} is not an environment variable's name")
    return tuple(names)


class ProcessHost:
    """An agent process behind the Host port: ``--host process``."""

    name = HOST_NAME
    tiers: frozenset[Tier] = frozenset({"l2"})

    def __init__(
        self,
        directory: Path,
        *,
        agents: str | None = None,
        command: str | None = None,
        timeout: str | None = None,
        pass_env: str | None = None,
        tools_server: str | None = None,
        start: str | None = None,
    ) -> None:
        try:
            found = find_project(directory)
            # the core's own reader of Host options: one rule for both (a string or a number)
            settings: Mapping[str, Any] = found.host_options(HOST_NAME, OPTIONS)
        except SettingsRefused as exc:
            raise HostOptionError(str(exc)) from None
        self.root = found.root if found.file is not None else directory
        manifest = agents or settings.get("agents") or DEFAULT
        self.manifest: Manifest = read_manifest(self.root / str(manifest), self.root)
        default = command or settings.get("command")
        try:
            self.command = tuple(shlex.split(default)) if isinstance(default, str) else None
        except ValueError as exc:
            raise HostOptionError(f"command cannot be split: {exc}") from None
        for spec in self.manifest.agents.values():
            if spec.command is None and not self.command:
                raise HostOptionError(
                    f"agent {spec.name!r} of {self.manifest.path} has no command, and no "
                    "host option command= gives one"
                )
        self.timeout = number_option(
            "timeout", timeout or settings.get("timeout"), TIMEOUT_SECONDS, most=MAX_TIMEOUT
        )
        self.pass_env = _env_names(pass_env or settings.get("pass_env"))
        how = str(start or settings.get("start") or STARTS[0])
        if how not in STARTS:
            raise HostOptionError(f"start must be 'fork-server' or 'spawn', not {how!r}")
        self.forks = ForkServers(self.root, self.base_env()) if how == STARTS[0] else None
        server = tools_server or settings.get("tools_server")
        team = TeamTools.of(str(server), self.root, self.base_env()) if server else None
        listed = team.declarations() if team is not None else {}  # started: load is once
        self.team = replace(team, forks=self.forks) if team is not None else None
        self.proxied = frozenset(listed)
        self._platform: dict[str, ToolDecl] = {}
        for spec in self.manifest.agents.values():
            for tool in spec.tools:
                decl = listed.get(tool) or self.manifest.tools.get(tool)
                if decl is None:
                    where = (
                        f"{self.team.spec!r} does not list it" if self.team else "no tools_server"
                    )
                    raise HostOptionError(
                        f"{self.manifest.path}: agents.{spec.name}.tools: {tool!r} has no "
                        f"declaration ({where}, and there is no [tools.{tool}] table)"
                    )
                self._platform[tool] = decl

    def base_env(self) -> dict[str, str]:
        names = (*BASE_ENV, *self.pass_env)
        return {name: os.environ[name] for name in names if name in os.environ}

    @property
    def trial_deadline(self) -> float:
        """The forked child's deadline: past ours (``timeout``), which ends the agent first."""
        return self.timeout + DEADLINE_SLACK

    @property
    def agents_from(self) -> str:
        return str(self.manifest.path)

    def fingerprint(self) -> str:
        """Our code, the manifest's agents and the Tools' declarations (what load depends on)."""
        described = sorted(
            (s.name, s.command, s.tools, s.internal_tools, s.instructions, self.command)
            for s in self.manifest.agents.values()
        )
        tools = sorted((n, repr(d)) for n, d in self._platform.items())
        digest = hashlib.sha256(repr((described, tools)).encode()).hexdigest()[:16]
        return f"{_code()} {self.manifest.path} {digest}"

    def agents(self) -> frozenset[str]:
        return frozenset(self.manifest.agents)

    def agent(self, name: str) -> AgentSpec | None:
        return self.manifest.agents.get(name)

    def offered_tools(self, case: CaseBase) -> AgentTools | None:
        """The agent's served and internal Tools, and the Tools the Case declares itself
        (served for its Trials from the script)."""
        spec = self.manifest.agents.get(case.agent)
        if spec is None:
            return None
        owner = f"agent {case.agent!r} of {self.manifest.path}"
        if case.tools:
            owner += " with the Case's tools"
        names = {*spec.tools, *spec.internal_tools, *(t.name for t in case.tools)}
        return AgentTools(frozenset(names), owner)

    def platform_tools(self) -> Mapping[str, ToolDecl]:
        return self._platform

    def context_rules(self) -> ContextRules:
        return ContextRules(allowed=frozenset(), soul_owned=frozenset())

    def given_text(self, case: CaseBase) -> Sequence[str]:
        """The agent's instructions file (the manifest's ``instructions_file``)."""
        spec = self.manifest.agents.get(case.agent)
        return (spec.instructions,) if spec is not None and spec.instructions else ()

    def services(self, tier: Tier) -> Sequence[type]:
        return ()

    def open_trial(self, case: CaseBase, model: ModelSession, trial: int) -> HostTrial:
        return ProcessTrial(self, case, model)

    def prepare_fork(self) -> None:
        """Start the Python agents' zygotes before the Sweep's workers are forked: they share
        them (each Trial's agent still a fresh process of its own)."""
        if self.forks is not None:
            self.forks.start(
                [s.command or self.command or () for s in self.manifest.agents.values()]
            )

    def close(self) -> None:
        """End the zygotes (a Trial closes what it opened itself)."""
        if self.forks is not None:
            self.forks.close()


class ProcessTrial:
    """One Trial: a server, the agent's process once, the Evidence read back."""

    def __init__(self, host: ProcessHost, case: CaseBase, session: ModelSession) -> None:
        self.host, self.case, self.session = host, case, session

    def services(self) -> Sequence[object]:
        return ()

    def _desk(self) -> ToolDesk:
        host, case = self.host, self.case
        spec = host.manifest.agents[case.agent]
        declared = [host.platform_tools()[name] for name in spec.tools]
        declared += [t for t in case.tools if t.name not in spec.tools]
        scripted = frozenset(r.name for r in case.tool_results)
        return ToolDesk(declared, ScriptedTools(case.tool_results), scripted, host.proxied)

    def run(self) -> Evidence:
        host, case = self.host, self.case
        spec = host.manifest.agents[case.agent]
        argv = spec.command or host.command or ()
        token = secrets.token_urlsafe(24)
        model = str(getattr(self.session, "model_id", None) or "eval-binding")
        desk = self._desk()
        scratch = tempfile.mkdtemp(prefix="eval-trial-")
        server = TrialServer(self.session, desk, host.team, token, model)
        try:
            server.start()
            base = f"http://127.0.0.1:{server.port}"
            env = {
                **host.base_env(),
                "TMPDIR": scratch,
                "EVAL_PROTOCOL": PROTOCOL,
                "OPENAI_BASE_URL": f"{base}/v1",
                "OPENAI_API_KEY": token,
                "ANTHROPIC_BASE_URL": base,
                "ANTHROPIC_API_KEY": token,
                "EVAL_MODEL": model,
                "EVAL_MCP_URL": f"{base}/mcp",
                "EVAL_MCP_TOKEN": token,
            }
            forked = host.forks.server_for(argv) if host.forks is not None else None
            ended = process.run(
                argv,
                cwd=host.root,
                env=env,
                stdin=stdin_document(case),
                timeout=host.timeout,
                marker=secrets.token_hex(8),
                server=forked,
            )
        finally:
            server.close()
            shutil.rmtree(scratch, ignore_errors=True)
        if server.failure is not None:
            raise server.failure
        if server.problem is not None:
            raise AgentError(
                f"the agent asked the harness for what it does not relay: {server.problem}"
            )
        answer = answer_of(_checked(ended, host.timeout))
        return Evidence(
            tier=case.tier,
            output_text=answer.text,
            output_kind="text" if answer.text else "none",
            tool_calls=desk.calls,
            tool_results=desk.results,
            loop_status=answer.status,
            loop_reason=answer.reason,
        )

    def close(self) -> None:
        pass


def _checked(ended: process.Ended, timeout: float) -> bytes:
    """The agent's stdout, once its process ended as the protocol says; else one line."""
    said = ended.stderr_line()
    tail = f" (stderr: {said})" if said else ""
    if ended.timed_out:
        raise AgentError(f"the agent did not answer within {timeout:g} s; its processes were ended")
    if ended.flooded:
        raise AgentError(
            f"the agent printed more than {process.STDOUT_LIMIT} bytes on stdout; it was ended"
        )
    if ended.outlived:
        raise AgentError(
            f"the agent left {len(ended.outlived)} process(es) running after it exited "
            f"({ended.outlived[0]}); they were ended"
        )
    if ended.status != 0:
        how = (
            f"signal {-ended.status}"
            if ended.status is not None and ended.status < 0
            else f"status {ended.status}"
        )
        raise AgentError(f"the agent exited with {how}{tail}")
    return ended.stdout
