"""The public plug-in API: every name a family, Host, model source, executor or command plug-in
may use; the only module a shipped package imports from the core (the rest of ``eval_core`` may
change without notice). Names load on first use (PEP 562): a family pays for what it uses."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from eval_core._util.lazy_names import LazyNames

if TYPE_CHECKING:
    from eval_core._case.blocks import (
        BLOCK,
        L2,
        L3,
        PATH,
        REASON,
        TEXT,
        Claim,
        Rule,
        absent,
        first_equal,
        minimum,
        need,
        present,
        rules,
        scorer,
        values_at,
    )
    from eval_core._case.case import (
        CaseBase,
        CaseField,
        FilePart,
        Message,
        ScriptedResult,
        ScriptStep,
        TextPart,
        TextStep,
        ToolCallsStep,
        ToolDecl,
        ToolRef,
        json_name,
    )
    from eval_core._case.evidence import (
        Denial,
        Event,
        Evidence,
        GuardDecision,
        GuardStage,
        Location,
        ModelRequest,
        SentPart,
        Testimony,
        ToolCall,
        ToolResult,
        Usage,
    )
    from eval_core._case.kinds import (
        Expectation,
        Grounding,
        KindSpec,
        NoVerdict,
        Tier,
        Verdict,
        failed,
        passed,
    )
    from eval_core._case.sections import Section
    from eval_core._case.sent import parts_of, sent
    from eval_core._case.witness import WITNESSED, WitnessCheck
    from eval_core._kit.testing import (
        Agent,
        CaseRefused,
        HostProbe,
        Kit,
        assert_host_conforms,
        assert_kind_conforms,
        evidence,
        write_soul,
    )
    from eval_core._loading.corpus import (
        Corpus,
        CorpusError,
        Loader,
        case_files,
        corpus_root,
    )
    from eval_core._loading.grounding import strings
    from eval_core._loading.opening import host_directory
    from eval_core._loading.tool_names import did_you_mean
    from eval_core._plugins.commands import CANONICAL, CommandRefused, Commands
    from eval_core._plugins.commands import path as path_argument
    from eval_core._plugins.executor import (
        Done,
        Executor,
        ExecutorFactory,
        ExecutorRefused,
        Work,
        WorkerLost,
    )
    from eval_core._plugins.fixtures import FixtureError, FixtureRequest, Shared, TrialFixture
    from eval_core._plugins.hookspecs import hookimpl, own_cases
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
    from eval_core._plugins.judge import current as current_judge
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
    from eval_core._plugins.schemas import kind_schema_hash
    from eval_core._recording.transcript import FORMAT as TRANSCRIPT_FORMAT
    from eval_core._recording.transcript import Pointer, RecordTypes, Transcript, TranscriptRefused
    from eval_core._recording.transcript import Reader as TranscriptReader
    from eval_core._recording.transcript import pack_path as transcript_pack_path
    from eval_core._recording.transcript import record_types as transcript_record_types
    from eval_core._recording.transcript import schema_hash as transcript_schema_hash
    from eval_core._recording.transcript import typed as typed_records
    from eval_core._recording.triallog import Logged, ResumeRefused, is_trial_log
    from eval_core._recording.triallog import read as read_trial_log
    from eval_core._running.scorecard import (
        COMPARABLE,
        Scorecard,
        admit,
        case_verdict,
        noise_floor,
        not_cleared,
    )
    from eval_core._running.scripted import ScriptedTools
    from eval_core._running.trial import TrialResult, decide, run_trial
    from eval_core._util.atomic import write_atomic
    from eval_core._util.cache_entry import read_entry as read_cache_entry
    from eval_core._util.cache_entry import write_entry as write_cache_entry
    from eval_core._util.cachedir import plugin_cache
    from eval_core._util.checks import (
        DOT_PATH,
        NON_EMPTY,
        Problems,
        at_least,
        dot_path,
        non_empty,
        non_empty_list,
        optional_reason,
        properties,
    )
    from eval_core._util.code import content_digest, fingerprint
    from eval_core._util.entrypoints import version
    from eval_core._util.input_files import (
        InputRefused,
        NotReadable,
        read_json_input,
        read_regular,
    )
    from eval_core._util.limits import TooDeep, check_json_depth
    from eval_core._util.outputs import Output, OutputRefused
    from eval_core._util.outputs import check_all as check_outputs
    from eval_core._util.paths import (
        compact_json,
        deep_equal,
        extract_json,
        path_segments,
        quote,
        quoted,
        render,
        resolve,
    )
    from eval_core._util.project import SettingsRefused, find_project
    from eval_core._util.safe_text import clean, one_line


__all__ = [
    "BLOCK",
    "CANONICAL",
    "COMPARABLE",
    "DOT_PATH",
    "L2",
    "L3",
    "LOCK_NAME",
    "NON_EMPTY",
    "PATH",
    "REASON",
    "TEXT",
    "TRANSCRIPT_FORMAT",
    "WITNESSED",
    "Agent",
    "AgentTools",
    "Binding",
    "CaseBase",
    "CaseField",
    "CaseRefused",
    "Ceilings",
    "Claim",
    "CommandRefused",
    "Commands",
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
    "Expectation",
    "FilePart",
    "FixtureError",
    "FixtureRequest",
    "Grounding",
    "GuardDecision",
    "GuardStage",
    "Host",
    "HostFactory",
    "HostOptionError",
    "HostProbe",
    "HostTrial",
    "InputRefused",
    "JudgeError",
    "KindSpec",
    "Kit",
    "LoadContext",
    "Loader",
    "Location",
    "Lock",
    "Logged",
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
    "NoVerdict",
    "NotReadable",
    "Output",
    "OutputRefused",
    "PluginError",
    "PluginSet",
    "Pointer",
    "Problems",
    "RecordTypes",
    "ResumeRefused",
    "Rule",
    "Scorecard",
    "ScriptStep",
    "ScriptedResult",
    "ScriptedTools",
    "Section",
    "SentPart",
    "SettingsRefused",
    "Shared",
    "Testimony",
    "TextPart",
    "TextStep",
    "Tier",
    "TooDeep",
    "ToolCall",
    "ToolCallsStep",
    "ToolDecl",
    "ToolRef",
    "ToolResult",
    "Transcript",
    "TranscriptReader",
    "TranscriptRefused",
    "TrialFixture",
    "TrialResult",
    "TurnScripted",
    "Usage",
    "Verdict",
    "WitnessCheck",
    "Work",
    "WorkerLost",
    "absent",
    "admit",
    "agents_owned",
    "assert_host_conforms",
    "assert_kind_conforms",
    "at_least",
    "case_files",
    "case_verdict",
    "check_json_depth",
    "check_outputs",
    "clean",
    "compact_json",
    "content_digest",
    "corpus_root",
    "current_judge",
    "current_lock",
    "decide",
    "deep_equal",
    "did_you_mean",
    "dot_path",
    "encode_lock",
    "evidence",
    "extract_json",
    "failed",
    "find_project",
    "fingerprint",
    "first_equal",
    "hookimpl",
    "host_directory",
    "is_trial_log",
    "json_name",
    "kind_schema_hash",
    "load_plugins",
    "lock_differences",
    "minimum",
    "need",
    "noise_floor",
    "non_empty",
    "non_empty_list",
    "not_cleared",
    "one_line",
    "optional_reason",
    "own_cases",
    "owns_agents",
    "parts_of",
    "passed",
    "path_argument",
    "path_segments",
    "plugin_cache",
    "present",
    "properties",
    "quote",
    "quoted",
    "read_cache_entry",
    "read_json_input",
    "read_regular",
    "read_trial_log",
    "render",
    "resolve",
    "rules",
    "run_trial",
    "scorer",
    "sent",
    "strings",
    "transcript_pack_path",
    "transcript_record_types",
    "transcript_schema_hash",
    "typed_records",
    "values_at",
    "version",
    "write_atomic",
    "write_cache_entry",
    "write_soul",
]


__getattr__ = LazyNames(__name__, Path(__file__))


def __dir__() -> list[str]:
    return __all__
