"""The model source port: how `eval sweep --model NAME` reaches a real model, through a plug-in.

The core knows no wire format, no pin, no price and no credential. A plug-in's
:func:`~eval_core._plugins.hookspecs.eval_models` returns a :class:`ModelSource`; the release gate
asks
it to open one :class:`ModelLeg` per model named on the command line (checking that model's
pin and credential before anything runs), runs each leg's binding through the same Sweep as
the scripted binding, lets the leg stop the Sweep at its ceiling, and hands it the finished
Scorecard to settle. The source also sets up the Judge for a Sweep
(:mod:`eval_core._plugins.judge`).
Without an installed source the scripted binding is all there is, and ``--model`` is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import msgspec

if TYPE_CHECKING:
    from eval_core._plugins.host import Binding
    from eval_core._plugins.judge import Judge
    from eval_core._running.scorecard import Scorecard


class ModelRefused(Exception):  # noqa: N818 - it names an outcome
    """The command cannot run as asked (a models file, a flag, the Judge): one line, exit 2."""


class ModelUnavailable(Exception):  # noqa: N818 - it names an outcome
    """One model cannot run (its credential failed preflight). Alone it refuses the command;
    in a Matrix its leg is shown unavailable and the other legs run."""


class Ceilings(msgspec.Struct, frozen=True):
    """The ceiling flags of `eval sweep`, already checked by the core (finite, > 0, at most one
    token ceiling, and one of them given with ``--model``)."""

    max_tokens: int | None = None
    max_tokens_per_trial: int | None = None
    max_spend: float | None = None


class ModelLeg(Protocol):
    """One named model of a Sweep, past its preflight."""

    @property
    def secrets(self) -> Sequence[str]:
        """Values no output may show (its credential): the core redacts them everywhere."""
        ...

    def start(self, ceilings: Ceilings, planned: int) -> Binding:
        """The binding the leg's Trials reach the model through, its ceiling set for ``planned``
        Trials. Called once, just before the leg's first Trial."""
        ...

    @property
    def concurrency(self) -> int:
        """How many of the leg's Trials run at once unless ``--jobs`` says otherwise."""
        ...

    def describe(self) -> str:
        """One progress line (after :meth:`start`): the model, its wire, its ceiling."""
        ...

    def should_stop(self, card: Scorecard) -> str | None:
        """Checked before each Trial: why the next one must not start (a ceiling), or ``None``."""
        ...

    def settle(self, card: Scorecard) -> None:
        """Write into the finished Scorecard what the leg cost and what the model was."""
        ...

    def close(self) -> None:
        """Release what :meth:`start` opened; always called, also when the leg never ran."""
        ...


class ModelSource(Protocol):
    """What `eval sweep --model` asks of the installed model-source plug-in."""

    def open_leg(self, models_file: Path, name: str) -> ModelLeg:
        """The model pinned as ``name`` in ``models_file``, its credential checked.

        Raises :class:`ModelRefused` for a models file it cannot use and
        :class:`ModelUnavailable` for a model whose preflight fails. Opens no connection.
        """
        ...

    def judge(self, legs: Sequence[ModelLeg], warn: Callable[[str], None]) -> Judge | None:
        """The Judge configured for a Sweep of ``legs`` (``[]`` for the scripted binding), or
        ``None`` when none is. Raises :class:`ModelRefused` for a Judge that may not be used
        (one that is a model under test); ``warn`` takes a line for stderr."""
        ...
