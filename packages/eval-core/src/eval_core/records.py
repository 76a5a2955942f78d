"""What reads or writes a Sweep's records: the Scorecard and the rule that decides a
Trial, the trial log, the transcripts as written (their reader is ``eval_report.transcripts``)
and recorded Cases, the bounds a reader of them keeps, the outputs a report writes; and the
records a Host's service and a family's fixture pass each other (what a Trial left in the Host's
database, a service's settings), defined once. The report, rescore and record plug-ins import
the core only from here and :mod:`eval_core.commands`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eval_core._util.public import Public

if TYPE_CHECKING:
    from eval_core._case.case import (
        CaseBase,
        ScriptedCall,
        ScriptedResult,
        ScriptStep,
        StructuredStep,
        TextStep,
        ToolCallsStep,
        json_name,
    )
    from eval_core._case.evidence import Evidence, GuardDecision, Location, ModelRequest, ToolCall
    from eval_core._case.kinds import Expectation, KindSpec
    from eval_core._case.recorded import Recorded, recorded_from
    from eval_core._case.witness import WITNESSED
    from eval_core._loading.corpus import Corpus
    from eval_core._loading.loader import Loader
    from eval_core._loading.rules import runs_model
    from eval_core._plugins.hookspecs import hookimpl
    from eval_core._plugins.host import agents_owned
    from eval_core._plugins.plugin_set import PluginSet
    from eval_core._plugins.plugins import PluginError, load_plugins
    from eval_core._plugins.schemas import field_schema_hash, kind_schema_hash
    from eval_core._plugins.service_records import (
        ActivePublication,
        Admission,
        DoctorEvent,
        ForeignFile,
        GeneratedFile,
        McpAccount,
        NativeEvent,
        NativeRoute,
        PersistedMessage,
        Redelivery,
        RoutineOutcome,
        RoutineSchedule,
        SoulCommit,
        StaleWrite,
        TurnRecord,
        folded,
    )
    from eval_core._recording.log_records import Logged, ResumeRefused, is_trial_log
    from eval_core._recording.log_records import read as read_trial_log
    from eval_core._recording.transcript import FORMAT as TRANSCRIPT_FORMAT
    from eval_core._recording.transcript import Pointer, Transcript
    from eval_core._recording.transcript import pack_path as transcript_pack_path
    from eval_core._recording.transcript import schema_hash as transcript_schema_hash
    from eval_core._running.scorecard import (
        COMPARABLE,
        Scorecard,
        case_verdict,
        made_safe,
        noise_floor,
        not_cleared,
    )
    from eval_core._running.stale import stale_cases
    from eval_core._running.trial import TrialResult, decide
    from eval_core._util.atomic import write_atomic
    from eval_core._util.input_files import MAX_RECORD_BYTES, NotReadable, read_regular
    from eval_core._util.limits import MAX_DEPTH as MAX_JSON_DEPTH
    from eval_core._util.limits import TooDeep, check_json_depth
    from eval_core._util.outputs import Output, OutputRefused
    from eval_core._util.outputs import check_all as check_outputs
    from eval_core._util.safe_text import clean, one_line

WHERE = {
    "ActivePublication": "eval_core._plugins.service_records:ActivePublication",
    "Admission": "eval_core._plugins.service_records:Admission",
    "COMPARABLE": "eval_core._running.scorecard:COMPARABLE",
    "CaseBase": "eval_core._case.case:CaseBase",
    "Corpus": "eval_core._loading.corpus:Corpus",
    "DoctorEvent": "eval_core._plugins.service_records:DoctorEvent",
    "Evidence": "eval_core._case.evidence:Evidence",
    "Expectation": "eval_core._case.kinds:Expectation",
    "ForeignFile": "eval_core._plugins.service_records:ForeignFile",
    "GeneratedFile": "eval_core._plugins.service_records:GeneratedFile",
    "GuardDecision": "eval_core._case.evidence:GuardDecision",
    "KindSpec": "eval_core._case.kinds:KindSpec",
    "Loader": "eval_core._loading.loader:Loader",
    "Location": "eval_core._case.evidence:Location",
    "Logged": "eval_core._recording.log_records:Logged",
    "MAX_JSON_DEPTH": "eval_core._util.limits:MAX_DEPTH",
    "MAX_RECORD_BYTES": "eval_core._util.input_files:MAX_RECORD_BYTES",
    "McpAccount": "eval_core._plugins.service_records:McpAccount",
    "ModelRequest": "eval_core._case.evidence:ModelRequest",
    "NativeEvent": "eval_core._plugins.service_records:NativeEvent",
    "NativeRoute": "eval_core._plugins.service_records:NativeRoute",
    "NotReadable": "eval_core._util.input_files:NotReadable",
    "Output": "eval_core._util.outputs:Output",
    "OutputRefused": "eval_core._util.outputs:OutputRefused",
    "PersistedMessage": "eval_core._plugins.service_records:PersistedMessage",
    "PluginError": "eval_core._plugins.plugins:PluginError",
    "PluginSet": "eval_core._plugins.plugin_set:PluginSet",
    "Pointer": "eval_core._recording.transcript:Pointer",
    "Recorded": "eval_core._case.recorded:Recorded",
    "Redelivery": "eval_core._plugins.service_records:Redelivery",
    "ResumeRefused": "eval_core._recording.log_records:ResumeRefused",
    "RoutineOutcome": "eval_core._plugins.service_records:RoutineOutcome",
    "RoutineSchedule": "eval_core._plugins.service_records:RoutineSchedule",
    "Scorecard": "eval_core._running.scorecard:Scorecard",
    "ScriptStep": "eval_core._case.case:ScriptStep",
    "ScriptedCall": "eval_core._case.case:ScriptedCall",
    "ScriptedResult": "eval_core._case.case:ScriptedResult",
    "SoulCommit": "eval_core._plugins.service_records:SoulCommit",
    "StaleWrite": "eval_core._plugins.service_records:StaleWrite",
    "StructuredStep": "eval_core._case.case:StructuredStep",
    "TRANSCRIPT_FORMAT": "eval_core._recording.transcript:FORMAT",
    "TextStep": "eval_core._case.case:TextStep",
    "TooDeep": "eval_core._util.limits:TooDeep",
    "ToolCall": "eval_core._case.evidence:ToolCall",
    "ToolCallsStep": "eval_core._case.case:ToolCallsStep",
    "Transcript": "eval_core._recording.transcript:Transcript",
    "TrialResult": "eval_core._running.trial:TrialResult",
    "TurnRecord": "eval_core._plugins.service_records:TurnRecord",
    "WITNESSED": "eval_core._case.witness:WITNESSED",
    "field_schema_hash": "eval_core._plugins.schemas:field_schema_hash",
    "made_safe": "eval_core._running.scorecard:made_safe",
    "agents_owned": "eval_core._plugins.host:agents_owned",
    "case_verdict": "eval_core._running.scorecard:case_verdict",
    "check_json_depth": "eval_core._util.limits:check_json_depth",
    "check_outputs": "eval_core._util.outputs:check_all",
    "clean": "eval_core._util.safe_text:clean",
    "decide": "eval_core._running.trial:decide",
    "folded": "eval_core._plugins.service_records:folded",
    "hookimpl": "eval_core._plugins.hookspecs:hookimpl",
    "is_trial_log": "eval_core._recording.log_records:is_trial_log",
    "json_name": "eval_core._case.case:json_name",
    "kind_schema_hash": "eval_core._plugins.schemas:kind_schema_hash",
    "load_plugins": "eval_core._plugins.plugins:load_plugins",
    "noise_floor": "eval_core._running.scorecard:noise_floor",
    "not_cleared": "eval_core._running.scorecard:not_cleared",
    "one_line": "eval_core._util.safe_text:one_line",
    "read_regular": "eval_core._util.input_files:read_regular",
    "read_trial_log": "eval_core._recording.log_records:read",
    "recorded_from": "eval_core._case.recorded:recorded_from",
    "runs_model": "eval_core._loading.rules:runs_model",
    "stale_cases": "eval_core._running.stale:stale_cases",
    "transcript_pack_path": "eval_core._recording.transcript:pack_path",
    "transcript_schema_hash": "eval_core._recording.transcript:schema_hash",
    "write_atomic": "eval_core._util.atomic:write_atomic",
}
"""Where each public name lives: ``name -> "module:attribute"``."""

__all__ = [
    "COMPARABLE",
    "MAX_JSON_DEPTH",
    "MAX_RECORD_BYTES",
    "TRANSCRIPT_FORMAT",
    "WITNESSED",
    "ActivePublication",
    "Admission",
    "CaseBase",
    "Corpus",
    "DoctorEvent",
    "Evidence",
    "Expectation",
    "ForeignFile",
    "GeneratedFile",
    "GuardDecision",
    "KindSpec",
    "Loader",
    "Location",
    "Logged",
    "McpAccount",
    "ModelRequest",
    "NativeEvent",
    "NativeRoute",
    "NotReadable",
    "Output",
    "OutputRefused",
    "PersistedMessage",
    "PluginError",
    "PluginSet",
    "Pointer",
    "Recorded",
    "Redelivery",
    "ResumeRefused",
    "RoutineOutcome",
    "RoutineSchedule",
    "Scorecard",
    "ScriptStep",
    "ScriptedCall",
    "ScriptedResult",
    "SoulCommit",
    "StaleWrite",
    "StructuredStep",
    "TextStep",
    "TooDeep",
    "ToolCall",
    "ToolCallsStep",
    "Transcript",
    "TrialResult",
    "TurnRecord",
    "agents_owned",
    "case_verdict",
    "check_json_depth",
    "check_outputs",
    "clean",
    "decide",
    "field_schema_hash",
    "folded",
    "hookimpl",
    "is_trial_log",
    "json_name",
    "kind_schema_hash",
    "load_plugins",
    "made_safe",
    "noise_floor",
    "not_cleared",
    "one_line",
    "read_regular",
    "read_trial_log",
    "recorded_from",
    "runs_model",
    "stale_cases",
    "transcript_pack_path",
    "transcript_schema_hash",
    "write_atomic",
]

__getattr__, __dir__ = Public(__name__, WHERE).hooks(__all__)
