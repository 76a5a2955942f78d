"""What a command plug-in needs: :class:`Commands` to declare its commands in the
``eval_commands`` hook, the refusal it raises, and what a command reads (the project, a
Corpus opened as the core's own commands open it, the plug-in set); and what a command that
runs a Sweep (``eval record``) or a gate called by the Sweep's hooks (``eval_sweep_leg``,
``eval_sweep_files``) is handed: the Sweep's options and legs, the Matrix verdict, whether a
commit is clean; and what a command that writes a Corpus (``eval init``, from eval-scaffold)
opens piece by piece: the plug-in set, a Host, the Corpus through it, its lock. docs/plugins.md.

The ``eval`` front-end (the eval-cli package: typer, the core's commands and their flags, the
help) is a client of this module too: the command plug-ins' hooks loaded and their commands
run (:func:`add_commands`, :func:`run_command`), what the core's commands do (check, hash,
lock, plugins, sweep; a Case document checked with no Host, for the kind reference) and the
pieces of ``eval --help``'s kept text (the cache entry, its directory, the interpreter, the
entry points and their versions). And what the author's kit (the eval-kit package) runs, as
``eval plugins --check`` and its conformance checks do: the plug-in set built from the installed
plug-ins and a plug-in under test, a loaded Corpus swept on a binding (:func:`run_sweep`), a
schema's structure, the witness that is only testimony.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._case.kinds import ALL_TIERS
    from eval_core._case.witness import TESTIMONY, WITNESSES
    from eval_core._loading.corpus import RED_TEAM, CorpusError, case_files, corpus_root
    from eval_core._loading.document import document_problems as case_document_problems
    from eval_core._loading.grounding import grounded_text
    from eval_core._loading.opening import (
        COMPARISON_REFUSED,
        Opened,
        Refused,
        known_host,
        locked_owners,
        open_corpus,
        require_directory,
    )
    from eval_core._loading.opening import host as open_host
    from eval_core._loading.opening import load as load_corpus
    from eval_core._loading.opening import plugins as open_plugins
    from eval_core._plugins.command_plugins import add_commands, run_command
    from eval_core._plugins.commands import (
        CANONICAL,
        REFUSED,
        Argument,
        Arguments,
        Command,
        CommandRefused,
        Commands,
        default_log,
        default_log_help,
    )
    from eval_core._plugins.commands import path as path_argument
    from eval_core._plugins.hookspecs import hookimpl
    from eval_core._plugins.lock import LOCK_NAME, LockError
    from eval_core._plugins.lock import read as read_lock
    from eval_core._plugins.lock import schemas as lock_schemas
    from eval_core._plugins.lock import write as write_lock
    from eval_core._plugins.plugin_set import PluginSet
    from eval_core._plugins.plugins import PluginError, load_plugins
    from eval_core._plugins.plugins import build as build_plugins
    from eval_core._plugins.plugins import discover as discover_plugins
    from eval_core._plugins.registered import PluginInfo
    from eval_core._plugins.schemas import structural as structural_schema
    from eval_core._running.runner import run_sweep
    from eval_core._sweeping.leg import Run as SweepLeg
    from eval_core._sweeping.matrix import Leg, covered, not_cleared_matrix
    from eval_core._sweeping.options import SweepOptions
    from eval_core._sweeping.render import render_verdict
    from eval_core._sweeping.sweep import sweep
    from eval_core._util.cache_entry import read_entry as read_cache_entry
    from eval_core._util.cache_entry import write_entry as write_cache_entry
    from eval_core._util.cache_key import interpreter
    from eval_core._util.cache_use import forget as forget_cache_use
    from eval_core._util.cachedir import cache_dir
    from eval_core._util.cachedir import enabled as cache_enabled
    from eval_core._util.collector import pause as pause_collector
    from eval_core._util.entrypoints import entry_points, version
    from eval_core._util.guard import show_tracebacks
    from eval_core._util.limits import MAX_PLANNED_TRIALS, MAX_TRIALS_PER_CASE
    from eval_core._util.project import (
        MAX_SETTINGS_BYTES,
        Project,
        SettingsRefused,
        find_project,
        is_cwd,
    )
    from eval_core._util.provenance import is_clean
    from eval_core._util.safe_text import clean, one_line

WHERE = {
    "ALL_TIERS": "eval_core._case.kinds:ALL_TIERS",
    "Argument": "eval_core._plugins.commands:Argument",
    "Arguments": "eval_core._plugins.commands:Arguments",
    "CANONICAL": "eval_core._plugins.commands:CANONICAL",
    "COMPARISON_REFUSED": "eval_core._loading.opening:COMPARISON_REFUSED",
    "Command": "eval_core._plugins.commands:Command",
    "CommandRefused": "eval_core._plugins.commands:CommandRefused",
    "Commands": "eval_core._plugins.commands:Commands",
    "CorpusError": "eval_core._loading.corpus:CorpusError",
    "LOCK_NAME": "eval_core._plugins.lock:LOCK_NAME",
    "Leg": "eval_core._sweeping.matrix:Leg",
    "LockError": "eval_core._plugins.lock:LockError",
    "MAX_PLANNED_TRIALS": "eval_core._util.limits:MAX_PLANNED_TRIALS",
    "MAX_TRIALS_PER_CASE": "eval_core._util.limits:MAX_TRIALS_PER_CASE",
    "MAX_SETTINGS_BYTES": "eval_core._util.project:MAX_SETTINGS_BYTES",
    "Opened": "eval_core._loading.opening:Opened",
    "PluginError": "eval_core._plugins.plugins:PluginError",
    "PluginInfo": "eval_core._plugins.registered:PluginInfo",
    "PluginSet": "eval_core._plugins.plugin_set:PluginSet",
    "Project": "eval_core._util.project:Project",
    "RED_TEAM": "eval_core._loading.corpus:RED_TEAM",
    "REFUSED": "eval_core._plugins.commands:REFUSED",
    "Refused": "eval_core._loading.opening:Refused",
    "SettingsRefused": "eval_core._util.project:SettingsRefused",
    "SweepLeg": "eval_core._sweeping.leg:Run",
    "SweepOptions": "eval_core._sweeping.options:SweepOptions",
    "TESTIMONY": "eval_core._case.witness:TESTIMONY",
    "add_commands": "eval_core._plugins.command_plugins:add_commands",
    "build_plugins": "eval_core._plugins.plugins:build",
    "cache_dir": "eval_core._util.cachedir:cache_dir",
    "cache_enabled": "eval_core._util.cachedir:enabled",
    "case_document_problems": "eval_core._loading.document:document_problems",
    "WITNESSES": "eval_core._case.witness:WITNESSES",
    "case_files": "eval_core._loading.corpus:case_files",
    "clean": "eval_core._util.safe_text:clean",
    "corpus_root": "eval_core._loading.corpus:corpus_root",
    "covered": "eval_core._sweeping.matrix:covered",
    "default_log": "eval_core._plugins.commands:default_log",
    "default_log_help": "eval_core._plugins.commands:default_log_help",
    "discover_plugins": "eval_core._plugins.plugins:discover",
    "entry_points": "eval_core._util.entrypoints:entry_points",
    "find_project": "eval_core._util.project:find_project",
    "grounded_text": "eval_core._loading.grounding:grounded_text",
    "forget_cache_use": "eval_core._util.cache_use:forget",
    "hookimpl": "eval_core._plugins.hookspecs:hookimpl",
    "interpreter": "eval_core._util.cache_key:interpreter",
    "is_clean": "eval_core._util.provenance:is_clean",
    "is_cwd": "eval_core._util.project:is_cwd",
    "known_host": "eval_core._loading.opening:known_host",
    "load_corpus": "eval_core._loading.opening:load",
    "load_plugins": "eval_core._plugins.plugins:load_plugins",
    "lock_schemas": "eval_core._plugins.lock:schemas",
    "locked_owners": "eval_core._loading.opening:locked_owners",
    "not_cleared_matrix": "eval_core._sweeping.matrix:not_cleared_matrix",
    "one_line": "eval_core._util.safe_text:one_line",
    "open_corpus": "eval_core._loading.opening:open_corpus",
    "open_host": "eval_core._loading.opening:host",
    "open_plugins": "eval_core._loading.opening:plugins",
    "path_argument": "eval_core._plugins.commands:path",
    "pause_collector": "eval_core._util.collector:pause",
    "read_cache_entry": "eval_core._util.cache_entry:read_entry",
    "read_lock": "eval_core._plugins.lock:read",
    "render_verdict": "eval_core._sweeping.render:render_verdict",
    "require_directory": "eval_core._loading.opening:require_directory",
    "run_command": "eval_core._plugins.command_plugins:run_command",
    "run_sweep": "eval_core._running.runner:run_sweep",
    "show_tracebacks": "eval_core._util.guard:show_tracebacks",
    "structural_schema": "eval_core._plugins.schemas:structural",
    "sweep": "eval_core._sweeping.sweep:sweep",
    "version": "eval_core._util.entrypoints:version",
    "write_cache_entry": "eval_core._util.cache_entry:write_entry",
    "write_lock": "eval_core._plugins.lock:write",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

__all__ = [
    "ALL_TIERS",
    "CANONICAL",
    "COMPARISON_REFUSED",
    "LOCK_NAME",
    "MAX_PLANNED_TRIALS",
    "MAX_SETTINGS_BYTES",
    "MAX_TRIALS_PER_CASE",
    "RED_TEAM",
    "REFUSED",
    "TESTIMONY",
    "WITNESSES",
    "Argument",
    "Arguments",
    "Command",
    "CommandRefused",
    "Commands",
    "CorpusError",
    "Leg",
    "LockError",
    "Opened",
    "PluginError",
    "PluginInfo",
    "PluginSet",
    "Project",
    "Refused",
    "SettingsRefused",
    "SweepLeg",
    "SweepOptions",
    "add_commands",
    "build_plugins",
    "cache_dir",
    "cache_enabled",
    "case_document_problems",
    "case_files",
    "clean",
    "corpus_root",
    "covered",
    "default_log",
    "default_log_help",
    "discover_plugins",
    "entry_points",
    "find_project",
    "forget_cache_use",
    "grounded_text",
    "hookimpl",
    "interpreter",
    "is_clean",
    "is_cwd",
    "known_host",
    "load_corpus",
    "load_plugins",
    "lock_schemas",
    "locked_owners",
    "not_cleared_matrix",
    "one_line",
    "open_corpus",
    "open_host",
    "open_plugins",
    "path_argument",
    "pause_collector",
    "read_cache_entry",
    "read_lock",
    "render_verdict",
    "require_directory",
    "run_command",
    "run_sweep",
    "show_tracebacks",
    "structural_schema",
    "sweep",
    "version",
    "write_cache_entry",
    "write_lock",
]

__getattr__, __dir__ = Public(__name__, WHERE).hooks(__all__)
