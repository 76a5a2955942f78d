"""The legs of a Sweep: one per model named (a Matrix when several), or the scripted binding's.

A model's preflight failure refuses a lone model, and marks one leg of a Matrix unavailable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._loading.opening import Refused
from eval_core._plugins.model_source import ModelRefused
from eval_core._sweeping.leg import Run
from eval_core._sweeping.options import SweepOptions

if TYPE_CHECKING:
    from eval_core._plugins.model_source import ModelSource


def open_legs(options: SweepOptions, source: ModelSource | None) -> list[Run]:
    """Each model's leg from the model source; a preflight failure refuses one model alone,
    and marks a Matrix leg unavailable."""
    if not options.models:
        return [Run("scripted", None)]
    from eval_core._plugins.model_source import ModelUnavailable

    if source is None:
        raise Refused(
            f"--model {','.join(options.models)}: no model source is installed (a plug-in "
            "providing eval_models, such as eval-bindings); without --model the scripted "
            "binding runs"
        )
    runs: list[Run] = []
    try:
        for name in options.models:
            try:
                runs.append(Run(name, source.open_leg(options.models_file, name)))
            except ModelUnavailable as exc:
                if len(options.models) == 1:
                    raise Refused(str(exc)) from None
                runs.append(Run(name, None, unavailable=str(exc)))
    except ModelRefused as exc:
        for run in runs:
            if run.leg is not None:
                run.leg.close()
        raise Refused(str(exc)) from None
    return runs
