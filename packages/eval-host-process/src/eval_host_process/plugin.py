"""Entry point: registers the ``process`` Host (any agent, any language, run as a process), and
refuses at load what it cannot run: a File in the input (the protocol carries text), and an
Expectation that needs the ``tool`` witness for a Tool the agent implements internally (no call
of it crosses a boundary the harness serves). Its tier, L2 only, is the core's check.

Light on purpose: every ``eval`` invocation loads it, so the server (starlette, uvicorn, the
MCP SDK) is imported only when the Host is chosen (``--host process``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from eval_core.hosts import (
    CaseBase,
    FilePart,
    Host,
    HostFactory,
    LoadContext,
    hookimpl,
    owns_agents,
)

HOST_NAME = "process"


@owns_agents  # the agent is the team's own program: a Corpus for it needs no Eval Soul
def process_host(
    directory: Path,
    *,
    agents: str | None = None,
    command: str | None = None,
    timeout: str | None = None,
    pass_env: str | None = None,
    tools_server: str | None = None,
    start: str | None = None,
) -> Host:
    """``--host process``; options ``agents`` (the manifest), ``command``, ``timeout``
    (seconds per Trial), ``pass_env``, ``tools_server`` and ``start`` (``fork-server``, the
    default, or ``spawn``), each also read from ``[tool.eval]``. ``directory``: the Corpus's,
    where the team's project is found upwards."""
    from eval_host_process.host import ProcessHost

    return ProcessHost(
        directory,
        agents=agents,
        command=command,
        timeout=timeout,
        pass_env=pass_env,
        tools_server=tools_server,
        start=start,
    )


@hookimpl
def eval_hosts() -> Mapping[str, HostFactory]:
    return {HOST_NAME: process_host}


@hookimpl
def eval_check_case(case: CaseBase, context: LoadContext) -> list[tuple[str, str]]:
    host: Any = context.host
    if getattr(host, "name", None) != HOST_NAME:
        return []
    problems: list[tuple[str, str]] = []
    for m, message in enumerate(case.input):
        for p, part in enumerate(message.parts):
            if isinstance(part, FilePart):
                problems.append(
                    (
                        f"$.input[{m}].content[{p}]",
                        "the process Host hands the agent text only: eval-process/1 carries "
                        "no File",
                    )
                )
    spec = host.agent(case.agent) if hasattr(host, "agent") else None
    internal = frozenset(spec.internal_tools) if spec is not None else frozenset()
    if not internal:
        return problems
    for e, expectation in enumerate(case.expect):
        kind = context.kinds.get(getattr(expectation, "kind_name", ""))
        if kind is None or kind.witness != "tool":
            continue
        for suffix, name in kind.tool_names(expectation):
            if name in internal:
                problems.append(
                    (
                        f"$.expect[{e}]{suffix}",
                        f"{kind.name} needs the tool witness, but {name!r} is internal to agent "
                        f"{case.agent!r} (internal_tools): its calls never cross a boundary the "
                        "harness serves, so nothing can witness them",
                    )
                )
    for r, result in enumerate(case.tool_results):
        if result.name in internal:
            problems.append(
                (
                    f"$.toolResults[{r}].name",
                    f"{result.name!r} is internal to agent {case.agent!r}: a scripted result "
                    "never reaches it",
                )
            )
    return problems
