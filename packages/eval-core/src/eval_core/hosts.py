"""What a Host, a model source or an executor needs: the Host port and the services it
offers, the model-call shapes, the Evidence a Host fills from its witnesses, the model-source
and executor ports, the Corpus, plug-in set and lock an executor's worker opens, and the
scripted binding and the service match that the kit's Host conformance check probes with. A Host
imports the core only from here (and :mod:`eval_kit`, the eval-kit package, in its tests);
docs/hosts.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._case.case import (
        CaseBase,
        FilePart,
        Message,
        ScriptedResult,
        ScriptStep,
        TextPart,
        ToolDecl,
    )
    from eval_core._case.evidence import (
        Denial,
        Event,
        Evidence,
        GuardDecision,
        ModelRequest,
        RepliedCall,
        Testimony,
        ToolCall,
        ToolResult,
        Usage,
    )
    from eval_core._case.kinds import Tier
    from eval_core._case.previews import preview_value
    from eval_core._case.sent import sent
    from eval_core._loading.corpus import Corpus, CorpusError, case_files, corpus_root
    from eval_core._loading.loader import Loader
    from eval_core._loading.opening import host_directory, load_seconds
    from eval_core._plugins.executor import (
        Done,
        Executor,
        ExecutorFactory,
        ExecutorRefused,
        Work,
        WorkerLost,
    )
    from eval_core._plugins.fixtures import SweepResources
    from eval_core._plugins.hookspecs import hookimpl
    from eval_core._plugins.host import (
        AgentTools,
        Binding,
        ContextRules,
        Host,
        HostFactory,
        HostOptionError,
        HostTrial,
        LoadContext,
        ModelCallRequest,
        ModelError,
        ModelReply,
        ModelSession,
        ModelToolCall,
        TurnScripted,
        agents_owned,
        owns_agents,
    )
    from eval_core._plugins.host_options import number_option
    from eval_core._plugins.judge import JudgeError
    from eval_core._plugins.lock import LOCK_NAME, Lock
    from eval_core._plugins.lock import current as current_lock
    from eval_core._plugins.lock import differences as lock_differences
    from eval_core._plugins.lock import encode as encode_lock
    from eval_core._plugins.model_source import (
        Ceilings,
        ModelLeg,
        ModelRefused,
        ModelSource,
        ModelUnavailable,
    )
    from eval_core._plugins.plugin_set import PluginSet
    from eval_core._plugins.plugins import PluginError, load_plugins
    from eval_core._plugins.services import mismatch as service_mismatch
    from eval_core._plugins.team_app import TeamApp, import_app
    from eval_core._running.scripted import ScriptedBinding, ScriptedSession, ScriptedTools
    from eval_core._running.trial import TrialResult, run_trial
    from eval_core._util.cache_entry import read_entry as read_cache_entry
    from eval_core._util.cache_entry import write_entry as write_cache_entry
    from eval_core._util.cachedir import plugin_cache
    from eval_core._util.code import content_digest, fingerprint
    from eval_core._util.entrypoints import version
    from eval_core._util.input_files import InputRefused, NotReadable, read_json_input, read_regular
    from eval_core._util.limits import TooDeep, check_json_depth
    from eval_core._util.noise import Noise
    from eval_core._util.paths import compact_json, deep_equal
    from eval_core._util.project import SettingsRefused, find_project
    from eval_core._util.safe_text import one_line

WHERE = {
    "Noise": "eval_core._util.noise:Noise",
    "AgentTools": "eval_core._plugins.host:AgentTools",
    "Binding": "eval_core._plugins.host:Binding",
    "CaseBase": "eval_core._case.case:CaseBase",
    "Ceilings": "eval_core._plugins.model_source:Ceilings",
    "ContextRules": "eval_core._plugins.host:ContextRules",
    "Corpus": "eval_core._loading.corpus:Corpus",
    "CorpusError": "eval_core._loading.corpus:CorpusError",
    "Denial": "eval_core._case.evidence:Denial",
    "Done": "eval_core._plugins.executor:Done",
    "Event": "eval_core._case.evidence:Event",
    "Evidence": "eval_core._case.evidence:Evidence",
    "Executor": "eval_core._plugins.executor:Executor",
    "ExecutorFactory": "eval_core._plugins.executor:ExecutorFactory",
    "ExecutorRefused": "eval_core._plugins.executor:ExecutorRefused",
    "FilePart": "eval_core._case.case:FilePart",
    "GuardDecision": "eval_core._case.evidence:GuardDecision",
    "Host": "eval_core._plugins.host:Host",
    "HostFactory": "eval_core._plugins.host:HostFactory",
    "HostOptionError": "eval_core._plugins.host:HostOptionError",
    "HostTrial": "eval_core._plugins.host:HostTrial",
    "InputRefused": "eval_core._util.input_files:InputRefused",
    "JudgeError": "eval_core._plugins.judge:JudgeError",
    "LOCK_NAME": "eval_core._plugins.lock:LOCK_NAME",
    "LoadContext": "eval_core._plugins.host:LoadContext",
    "Loader": "eval_core._loading.loader:Loader",
    "Lock": "eval_core._plugins.lock:Lock",
    "Message": "eval_core._case.case:Message",
    "ModelCallRequest": "eval_core._plugins.host:ModelCallRequest",
    "ModelError": "eval_core._plugins.host:ModelError",
    "ModelLeg": "eval_core._plugins.model_source:ModelLeg",
    "ModelRefused": "eval_core._plugins.model_source:ModelRefused",
    "ModelReply": "eval_core._plugins.host:ModelReply",
    "ModelRequest": "eval_core._case.evidence:ModelRequest",
    "ModelSession": "eval_core._plugins.host:ModelSession",
    "ModelSource": "eval_core._plugins.model_source:ModelSource",
    "ModelToolCall": "eval_core._plugins.host:ModelToolCall",
    "ModelUnavailable": "eval_core._plugins.model_source:ModelUnavailable",
    "NotReadable": "eval_core._util.input_files:NotReadable",
    "PluginError": "eval_core._plugins.plugins:PluginError",
    "PluginSet": "eval_core._plugins.plugin_set:PluginSet",
    "RepliedCall": "eval_core._case.evidence:RepliedCall",
    "ScriptStep": "eval_core._case.case:ScriptStep",
    "ScriptedBinding": "eval_core._running.scripted:ScriptedBinding",
    "ScriptedResult": "eval_core._case.case:ScriptedResult",
    "ScriptedSession": "eval_core._running.scripted:ScriptedSession",
    "ScriptedTools": "eval_core._running.scripted:ScriptedTools",
    "SettingsRefused": "eval_core._util.project:SettingsRefused",
    "SweepResources": "eval_core._plugins.fixtures:SweepResources",
    "TeamApp": "eval_core._plugins.team_app:TeamApp",
    "Testimony": "eval_core._case.evidence:Testimony",
    "TextPart": "eval_core._case.case:TextPart",
    "Tier": "eval_core._case.kinds:Tier",
    "TooDeep": "eval_core._util.limits:TooDeep",
    "ToolCall": "eval_core._case.evidence:ToolCall",
    "ToolDecl": "eval_core._case.case:ToolDecl",
    "ToolResult": "eval_core._case.evidence:ToolResult",
    "TrialResult": "eval_core._running.trial:TrialResult",
    "TurnScripted": "eval_core._plugins.host:TurnScripted",
    "Usage": "eval_core._case.evidence:Usage",
    "Work": "eval_core._plugins.executor:Work",
    "WorkerLost": "eval_core._plugins.executor:WorkerLost",
    "agents_owned": "eval_core._plugins.host:agents_owned",
    "case_files": "eval_core._loading.corpus:case_files",
    "check_json_depth": "eval_core._util.limits:check_json_depth",
    "compact_json": "eval_core._util.paths:compact_json",
    "content_digest": "eval_core._util.code:content_digest",
    "corpus_root": "eval_core._loading.corpus:corpus_root",
    "current_lock": "eval_core._plugins.lock:current",
    "deep_equal": "eval_core._util.paths:deep_equal",
    "encode_lock": "eval_core._plugins.lock:encode",
    "find_project": "eval_core._util.project:find_project",
    "fingerprint": "eval_core._util.code:fingerprint",
    "hookimpl": "eval_core._plugins.hookspecs:hookimpl",
    "host_directory": "eval_core._loading.opening:host_directory",
    "import_app": "eval_core._plugins.team_app:import_app",
    "load_seconds": "eval_core._loading.opening:load_seconds",
    "load_plugins": "eval_core._plugins.plugins:load_plugins",
    "lock_differences": "eval_core._plugins.lock:differences",
    "number_option": "eval_core._plugins.host_options:number_option",
    "one_line": "eval_core._util.safe_text:one_line",
    "owns_agents": "eval_core._plugins.host:owns_agents",
    "plugin_cache": "eval_core._util.cachedir:plugin_cache",
    "preview_value": "eval_core._case.previews:preview_value",
    "read_cache_entry": "eval_core._util.cache_entry:read_entry",
    "read_json_input": "eval_core._util.input_files:read_json_input",
    "read_regular": "eval_core._util.input_files:read_regular",
    "run_trial": "eval_core._running.trial:run_trial",
    "sent": "eval_core._case.sent:sent",
    "service_mismatch": "eval_core._plugins.services:mismatch",
    "version": "eval_core._util.entrypoints:version",
    "write_cache_entry": "eval_core._util.cache_entry:write_entry",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

__all__ = [
    "LOCK_NAME",
    "AgentTools",
    "Binding",
    "CaseBase",
    "Ceilings",
    "ContextRules",
    "Corpus",
    "CorpusError",
    "Denial",
    "Done",
    "Event",
    "Evidence",
    "Executor",
    "ExecutorFactory",
    "ExecutorRefused",
    "FilePart",
    "GuardDecision",
    "Host",
    "HostFactory",
    "HostOptionError",
    "HostTrial",
    "InputRefused",
    "JudgeError",
    "LoadContext",
    "Loader",
    "Lock",
    "Message",
    "ModelCallRequest",
    "ModelError",
    "ModelLeg",
    "ModelRefused",
    "ModelReply",
    "ModelRequest",
    "ModelSession",
    "ModelSource",
    "ModelToolCall",
    "ModelUnavailable",
    "Noise",
    "NotReadable",
    "PluginError",
    "PluginSet",
    "RepliedCall",
    "ScriptStep",
    "ScriptedBinding",
    "ScriptedResult",
    "ScriptedSession",
    "ScriptedTools",
    "SettingsRefused",
    "SweepResources",
    "TeamApp",
    "Testimony",
    "TextPart",
    "Tier",
    "TooDeep",
    "ToolCall",
    "ToolDecl",
    "ToolResult",
    "TrialResult",
    "TurnScripted",
    "Usage",
    "Work",
    "WorkerLost",
    "agents_owned",
    "case_files",
    "check_json_depth",
    "compact_json",
    "content_digest",
    "corpus_root",
    "current_lock",
    "deep_equal",
    "encode_lock",
    "find_project",
    "fingerprint",
    "hookimpl",
    "host_directory",
    "import_app",
    "load_plugins",
    "load_seconds",
    "lock_differences",
    "number_option",
    "one_line",
    "owns_agents",
    "plugin_cache",
    "preview_value",
    "read_cache_entry",
    "read_json_input",
    "read_regular",
    "run_trial",
    "sent",
    "service_mismatch",
    "version",
    "write_cache_entry",
]

__getattr__, __dir__ = Public(__name__, WHERE).hooks(__all__)
