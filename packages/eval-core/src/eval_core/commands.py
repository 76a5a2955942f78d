"""What a command plug-in needs: :class:`Commands` to declare its commands in the
``eval_commands`` hook, the refusal it raises, and what a command reads (the project, a
Corpus opened as the core's own commands open it, the plug-in set). docs/plugins.md.
"""

from __future__ import annotations

from eval_core._loading.opening import Opened, Refused, locked_owners, open_corpus
from eval_core._plugins.commands import CANONICAL, CommandRefused, Commands
from eval_core._plugins.commands import path as path_argument
from eval_core._plugins.hookspecs import hookimpl
from eval_core._plugins.plugin_set import PluginSet
from eval_core._plugins.plugins import PluginError, load_plugins
from eval_core._util.project import Project, SettingsRefused, find_project, is_cwd
from eval_core._util.safe_text import clean, one_line

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
