"""The Host conformance check's names probe: a Host says which Tools a Case's agent is offered,
and the loader refuses a Case naming one it lacks.

Part of :mod:`eval_kit.host_conformance`: the probe's Case must be answered
(:meth:`~eval_core.hosts.Host.offered_tools` lists its Tool), and a Case expecting
``tool_not_called`` of a misspelt Tool must be refused at load at ``$.expect[0].name``, since
otherwise it would pass whatever the agent did.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from eval_core.hosts import CaseBase, CorpusError, Host, Loader, PluginSet


def misspelt(name: str) -> str:
    """A name one letter off the probe's Tool (its last letter doubled): the typo a person
    makes, which the loader must refuse."""
    return name + name[-1:]


def name_problems(
    agent: str,
    tool: str,
    plugins: PluginSet,
    host: Host,
    case: CaseBase,
    idle: Mapping[str, Any],
    directory: Path,
    at: str,
) -> list[str]:
    """Every way the Host lets a Tool name through unchecked, one line each. ``case`` is the
    loaded probe Case that calls ``tool``; ``idle`` a probe Case document that calls none,
    given a misspelt name to expect and written into ``directory`` (beside the probe's Soul)."""
    offered = getattr(host, "offered_tools", None)
    tools = offered(case) if offered is not None else None
    if tools is None:
        return [
            f"{at}names: offered_tools gives no answer for agent {agent!r}: a misspelt Tool "
            "name in an Expectation would pass unchecked"
        ]
    problems: list[str] = []
    if tool not in tools.names:
        problems.append(
            f"{at}names: offered_tools does not list {tool!r}, the Tool the probe calls; "
            f"it lists {sorted(tools.names)!r}"
        )
    wrong = misspelt(tool)
    directory.mkdir(parents=True)
    refused = {
        **idle,
        "id": "probe-misspelt",
        "expect": [{"kind": "tool_not_called", "name": wrong}],
    }
    (directory / "probe-misspelt.json").write_bytes(msgspec.json.encode(refused))
    try:
        Loader(plugins, host, judge="no-judge").load(directory)
    except CorpusError as exc:
        if not any(p.path == "$.expect[0].name" and repr(wrong) in p.reason for p in exc.problems):
            found = "; ".join(f"{p.path}: {p.reason}" for p in exc.problems)
            problems.append(f"{at}names: {wrong!r} refused, but not at $.expect[0].name: {found}")
        return problems
    problems.append(
        f"{at}names: a Case expecting tool_not_called of {wrong!r}, a Tool agent {agent!r} "
        "lacks, loaded: it would pass on a name that cannot occur"
    )
    return problems
