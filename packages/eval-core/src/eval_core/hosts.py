"""What a Host, a model source or an executor needs: the Host port and the services it
offers, the model-call shapes, the Evidence a Host fills from its witnesses, the model-source
and executor ports, and the Corpus, plug-in set and lock an executor's worker opens. A Host
imports the core only from here (and :mod:`eval_core.testing` in its tests); docs/hosts.md.
"""

from __future__ import annotations

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
    Testimony,
    ToolCall,
    ToolResult,
    Usage,
)
from eval_core._case.kinds import Tier
from eval_core._case.sent import sent
from eval_core._loading.corpus import Corpus, CorpusError, Loader, case_files, corpus_root
from eval_core._loading.opening import host_directory
from eval_core._plugins.executor import (
    Done,
    Executor,
    ExecutorFactory,
    ExecutorRefused,
    Work,
    WorkerLost,
)
from eval_core._plugins.fixtures import Shared
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
from eval_core._running.scripted import ScriptedTools
from eval_core._running.trial import TrialResult, run_trial
from eval_core._util.cache_entry import read_entry as read_cache_entry
from eval_core._util.cache_entry import write_entry as write_cache_entry
from eval_core._util.cachedir import plugin_cache
from eval_core._util.code import content_digest, fingerprint
from eval_core._util.entrypoints import version
from eval_core._util.input_files import InputRefused, NotReadable, read_json_input, read_regular
from eval_core._util.limits import TooDeep, check_json_depth
from eval_core._util.paths import compact_json, deep_equal
from eval_core._util.project import SettingsRefused, find_project
from eval_core._util.safe_text import one_line

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
    "NotReadable",
    "PluginError",
    "PluginSet",
    "ScriptStep",
    "ScriptedResult",
    "ScriptedTools",
    "SettingsRefused",
    "Shared",
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
    "load_plugins",
    "lock_differences",
    "one_line",
    "owns_agents",
    "plugin_cache",
    "read_cache_entry",
    "read_json_input",
    "read_regular",
    "run_trial",
    "sent",
    "version",
    "write_cache_entry",
]
