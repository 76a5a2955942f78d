"""The entry point of ``eval-bindings``: the model source, registered like any plug-in."""

from __future__ import annotations

from eval_bindings.source import PinnedModels
from eval_core.hosts import ModelSource, hookimpl


@hookimpl
def eval_models() -> ModelSource:  # typed as the port, so mypy checks the source against it
    return PinnedModels()
