"""The team's code a framework Host runs: ``app = "package.module:NAME"``.

A framework Host (pydantic-ai, LangGraph) imports the team's agents from the module ``app``
names: ``--host-option app=...``, else ``app`` in the ``[tool.eval]`` table of the project's
``pyproject.toml`` (:func:`~eval_core._util.project.find_project`: never above the git
repository's root, only from a file the user owns). The project's root and its ``pythonpath``
folders go first on ``sys.path``, so ``package.module`` imports as the team's own tests import
it. One reader, so every framework Host names, finds and refuses an ``app`` the same way; the
Host checks the shape of what it named (Agents, builders). Every problem is one line.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from eval_core._plugins.host import HostOptionError
from eval_core._util.project import SettingsRefused, find_project


@dataclass(frozen=True, slots=True)
class TeamApp:
    """What ``app`` named: its ``spec``, where it was given (``source``), the imported
    ``module``, the ``value`` it names there and the ``[tool.eval]`` table (empty without one)."""

    spec: str
    source: str
    module: ModuleType
    value: Any
    settings: Mapping[str, Any]

    def refused(self, reason: str) -> HostOptionError:
        """A one-line refusal of what ``app`` named, saying where it was named."""
        return HostOptionError(f"{self.source} {self.spec!r}: {reason}")


def import_app(directory: Path, app: str | None) -> TeamApp:
    """Import what ``app`` (else ``[tool.eval] app``, found upwards from ``directory``) names."""
    try:
        found = find_project(directory)
    except SettingsRefused as exc:
        raise HostOptionError(str(exc)) from None
    settings = found.table if found.file is not None else {}
    spec, source = app, "--host-option app"
    if spec is None and found.file is not None:
        spec, source = settings.get("app"), f"{found.file} [tool.eval] app"
    if not isinstance(spec, str) or not spec:
        raise HostOptionError(
            "no agents named: give --host-option app=package.module:AGENTS or "
            '[tool.eval] app = "package.module:AGENTS" in the pyproject.toml above the Corpus'
        )
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute.isidentifier():
        raise HostOptionError(f"{source} {spec!r}: expected package.module:AGENTS")
    if found.file is not None:
        for folder in (*reversed(found.pythonpath), found.root):
            if str(folder) not in sys.path:
                sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(module_name)
    except KeyboardInterrupt:
        raise
    except SystemExit as exc:  # the team's module must not end (or forge the code of) eval
        raise HostOptionError(
            f"{source} {spec!r}: importing {module_name} called sys.exit({exc.code!r})"
        ) from None
    except BaseException as exc:
        raise HostOptionError(
            f"{source} {spec!r}: importing {module_name} raised {type(exc).__name__}: {exc}"
        ) from None
    if not hasattr(module, attribute):
        raise HostOptionError(f"{source} {spec!r}: {module_name} has no {attribute!r}")
    value = getattr(module, attribute)
    return TeamApp(spec=spec, source=source, module=module, value=value, settings=settings)
