"""The core's old flat module paths, kept for one release: ``eval_core.corpus`` still imports,
as the module it became (``eval_core._loading.corpus``), with a DeprecationWarning that names
``eval_core.plugin``, the one public API. Delete this module in 0.3."""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader
    from types import ModuleType

MOVED: dict[str, str] = {
    "eval_core.atomic": "_util.atomic",
    "eval_core.cachedir": "_util.cachedir",
    "eval_core.case": "_case.case",
    "eval_core.checked": "_util.checked",
    "eval_core.checks": "_util.checks",
    "eval_core.cli": "_cli.cli",
    "eval_core.code": "_util.code",
    "eval_core.commands": "_plugins.commands",
    "eval_core.conformance": "_kit.conformance",
    "eval_core.corpus": "_loading.corpus",
    "eval_core.entrypoints": "_util.entrypoints",
    "eval_core.evidence": "_case.evidence",
    "eval_core.executor": "_plugins.executor",
    "eval_core.fixtures": "_plugins.fixtures",
    "eval_core.grounding": "_loading.grounding",
    "eval_core.guard": "_util.guard",
    "eval_core.hashing": "_util.hashing",
    "eval_core.hookspecs": "_plugins.hookspecs",
    "eval_core.host": "_plugins.host",
    "eval_core.input_files": "_util.input_files",
    "eval_core.judge": "_plugins.judge",
    "eval_core.kinds": "_case.kinds",
    "eval_core.limits": "_util.limits",
    "eval_core.lock": "_plugins.lock",
    "eval_core.matrix": "_sweeping.matrix",
    "eval_core.model_source": "_plugins.model_source",
    "eval_core.opening": "_loading.opening",
    "eval_core.outputs": "_util.outputs",
    "eval_core.paths": "_util.paths",
    "eval_core.plugins": "_plugins.plugins",
    "eval_core.progress": "_running.progress",
    "eval_core.provenance": "_util.provenance",
    "eval_core.pytest_plugin": "_kit.pytest_plugin",
    "eval_core.redaction": "_util.redaction",
    "eval_core.release": "_sweeping.sweep",
    "eval_core.render": "_sweeping.render",
    "eval_core.runner": "_running.runner",
    "eval_core.safe_text": "_util.safe_text",
    "eval_core.scaffold": "_kit.scaffold",
    "eval_core.schema": "_loading.schema",
    "eval_core.scorecard": "_running.scorecard",
    "eval_core.scoring": "_running.scoring",
    "eval_core.scripted": "_running.scripted",
    "eval_core.sections": "_case.sections",
    "eval_core.sent": "_case.sent",
    "eval_core.services": "_plugins.services",
    "eval_core.stopping": "_util.stopping",
    "eval_core.testing": "_kit.testing",
    "eval_core.transcript": "_recording.transcript",
    "eval_core.trial": "_running.trial",
    "eval_core.triallog": "_recording.triallog",
    "eval_core.witness": "_case.witness",
}


class _Moved:
    """Finds an old path and hands back the module it became (one module object, two names).
    A finder and loader by protocol: ``importlib.abc`` would cost every start-up ~70 ms."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", self))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = f"eval_core.{MOVED[spec.name]}"
        warnings.warn(
            f"{spec.name} is internal and moved to {new}; import from eval_core.plugin "
            "(the old path goes in eval-core 0.3)",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module ran when it was imported under its new name."""


def install() -> None:
    if not any(isinstance(finder, _Moved) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Moved())
