"""What a command plug-in needs: :class:`Commands` to declare its commands in the
``eval_commands`` hook, the refusal it raises, and what a command reads (the project, a
Corpus opened as the core's own commands open it, the plug-in set); and what a command that
runs a Sweep (``eval record``) or a gate called by the Sweep's hooks (``eval_sweep_leg``,
``eval_sweep_files``) is handed: the Sweep's options and legs, the Matrix verdict, whether a
commit is clean; and what a command that writes a Corpus (``eval init``, from eval-scaffold)
opens piece by piece: the plug-in set, a Host, the Corpus through it, its lock. docs/plugins.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._loading.opening import (
        COMPARISON_REFUSED,
        Opened,
        Refused,
        known_host,
        locked_owners,
        open_corpus,
    )
    from eval_core._loading.opening import host as open_host
    from eval_core._loading.opening import load as load_corpus
    from eval_core._loading.opening import plugins as open_plugins
    from eval_core._plugins.commands import CANONICAL, CommandRefused, Commands
    from eval_core._plugins.commands import path as path_argument
    from eval_core._plugins.hookspecs import hookimpl
    from eval_core._plugins.lock import write as write_lock
    from eval_core._plugins.plugin_set import PluginSet
    from eval_core._plugins.plugins import PluginError, load_plugins
    from eval_core._sweeping.leg import Run as SweepLeg
    from eval_core._sweeping.matrix import Leg, covered, not_cleared_matrix
    from eval_core._sweeping.options import SweepOptions
    from eval_core._sweeping.render import render_verdict
    from eval_core._sweeping.sweep import sweep
    from eval_core._util.limits import MAX_PLANNED_TRIALS
    from eval_core._util.project import (
        MAX_SETTINGS_BYTES,
        Project,
        SettingsRefused,
        find_project,
        is_cwd,
    )
    from eval_core._util.provenance import is_clean, repository_root
    from eval_core._util.safe_text import clean, one_line

WHERE = {
    "CANONICAL": "eval_core._plugins.commands:CANONICAL",
    "COMPARISON_REFUSED": "eval_core._loading.opening:COMPARISON_REFUSED",
    "CommandRefused": "eval_core._plugins.commands:CommandRefused",
    "Commands": "eval_core._plugins.commands:Commands",
    "Leg": "eval_core._sweeping.matrix:Leg",
    "MAX_PLANNED_TRIALS": "eval_core._util.limits:MAX_PLANNED_TRIALS",
    "MAX_SETTINGS_BYTES": "eval_core._util.project:MAX_SETTINGS_BYTES",
    "Opened": "eval_core._loading.opening:Opened",
    "PluginError": "eval_core._plugins.plugins:PluginError",
    "PluginSet": "eval_core._plugins.plugin_set:PluginSet",
    "Project": "eval_core._util.project:Project",
    "Refused": "eval_core._loading.opening:Refused",
    "SettingsRefused": "eval_core._util.project:SettingsRefused",
    "SweepLeg": "eval_core._sweeping.leg:Run",
    "SweepOptions": "eval_core._sweeping.options:SweepOptions",
    "clean": "eval_core._util.safe_text:clean",
    "covered": "eval_core._sweeping.matrix:covered",
    "find_project": "eval_core._util.project:find_project",
    "hookimpl": "eval_core._plugins.hookspecs:hookimpl",
    "is_clean": "eval_core._util.provenance:is_clean",
    "is_cwd": "eval_core._util.project:is_cwd",
    "known_host": "eval_core._loading.opening:known_host",
    "load_corpus": "eval_core._loading.opening:load",
    "load_plugins": "eval_core._plugins.plugins:load_plugins",
    "locked_owners": "eval_core._loading.opening:locked_owners",
    "not_cleared_matrix": "eval_core._sweeping.matrix:not_cleared_matrix",
    "one_line": "eval_core._util.safe_text:one_line",
    "open_corpus": "eval_core._loading.opening:open_corpus",
    "open_host": "eval_core._loading.opening:host",
    "open_plugins": "eval_core._loading.opening:plugins",
    "path_argument": "eval_core._plugins.commands:path",
    "render_verdict": "eval_core._sweeping.render:render_verdict",
    "repository_root": "eval_core._util.provenance:repository_root",
    "sweep": "eval_core._sweeping.sweep:sweep",
    "write_lock": "eval_core._plugins.lock:write",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

__all__ = [
    "CANONICAL",
    "COMPARISON_REFUSED",
    "MAX_PLANNED_TRIALS",
    "MAX_SETTINGS_BYTES",
    "CommandRefused",
    "Commands",
    "Leg",
    "Opened",
    "PluginError",
    "PluginSet",
    "Project",
    "Refused",
    "SettingsRefused",
    "SweepLeg",
    "SweepOptions",
    "clean",
    "covered",
    "find_project",
    "hookimpl",
    "is_clean",
    "is_cwd",
    "known_host",
    "load_corpus",
    "load_plugins",
    "locked_owners",
    "not_cleared_matrix",
    "one_line",
    "open_corpus",
    "open_host",
    "open_plugins",
    "path_argument",
    "render_verdict",
    "repository_root",
    "sweep",
    "write_lock",
]

__getattr__ = Public(__name__, WHERE)


def __dir__() -> list[str]:
    return __all__
