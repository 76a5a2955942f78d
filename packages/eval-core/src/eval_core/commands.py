"""What a command plug-in needs: :class:`Commands` to declare its commands in the
``eval_commands`` hook, the refusal it raises, and what a command reads (the project, a
Corpus opened as the core's own commands open it, the plug-in set). docs/plugins.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._loading.opening import Opened, Refused, locked_owners, open_corpus
    from eval_core._plugins.commands import CANONICAL, CommandRefused, Commands
    from eval_core._plugins.commands import path as path_argument
    from eval_core._plugins.hookspecs import hookimpl
    from eval_core._plugins.plugin_set import PluginSet
    from eval_core._plugins.plugins import PluginError, load_plugins
    from eval_core._util.project import Project, SettingsRefused, find_project, is_cwd
    from eval_core._util.safe_text import clean, one_line

WHERE = {
    "CANONICAL": "eval_core._plugins.commands:CANONICAL",
    "CommandRefused": "eval_core._plugins.commands:CommandRefused",
    "Commands": "eval_core._plugins.commands:Commands",
    "Opened": "eval_core._loading.opening:Opened",
    "PluginError": "eval_core._plugins.plugins:PluginError",
    "PluginSet": "eval_core._plugins.plugin_set:PluginSet",
    "Project": "eval_core._util.project:Project",
    "Refused": "eval_core._loading.opening:Refused",
    "SettingsRefused": "eval_core._util.project:SettingsRefused",
    "clean": "eval_core._util.safe_text:clean",
    "find_project": "eval_core._util.project:find_project",
    "hookimpl": "eval_core._plugins.hookspecs:hookimpl",
    "is_cwd": "eval_core._util.project:is_cwd",
    "load_plugins": "eval_core._plugins.plugins:load_plugins",
    "locked_owners": "eval_core._loading.opening:locked_owners",
    "one_line": "eval_core._util.safe_text:one_line",
    "open_corpus": "eval_core._loading.opening:open_corpus",
    "path_argument": "eval_core._plugins.commands:path",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

__all__ = [
    "CANONICAL",
    "CommandRefused",
    "Commands",
    "Opened",
    "PluginError",
    "PluginSet",
    "Project",
    "Refused",
    "SettingsRefused",
    "clean",
    "find_project",
    "hookimpl",
    "is_cwd",
    "load_plugins",
    "locked_owners",
    "one_line",
    "open_corpus",
    "path_argument",
]

__getattr__ = Public(__name__, WHERE)


def __dir__() -> list[str]:
    return __all__
