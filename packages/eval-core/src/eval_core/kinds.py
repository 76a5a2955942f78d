"""What an Expectation family needs: the hooks, Case fields and script parts, Evidence
records and their witnesses, a kind's metadata (:class:`KindSpec`) and its Verdict, the scorer's
building blocks, fixtures and the checks a field's validation uses. A family imports the core
only from here (and :mod:`eval_core.testing` in its tests); docs/plugins.md walks through it.
"""

from __future__ import annotations

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
from eval_core._case.witness import WITNESSED, Witness, WitnessCheck
from eval_core._loading.grounding import strings
from eval_core._loading.tool_names import did_you_mean
from eval_core._plugins.fixtures import FixtureError, FixtureRequest, TrialFixture
from eval_core._plugins.hookspecs import hookimpl, own_cases
from eval_core._plugins.host import LoadContext
from eval_core._plugins.judge import JudgeError
from eval_core._plugins.judge import current as current_judge
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
from eval_core._util.code import content_digest
from eval_core._util.entrypoints import version
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

__all__ = [
    "BLOCK",
    "DOT_PATH",
    "L2",
    "L3",
    "NON_EMPTY",
    "PATH",
    "REASON",
    "TEXT",
    "WITNESSED",
    "CaseBase",
    "CaseField",
    "Claim",
    "Denial",
    "Event",
    "Evidence",
    "Expectation",
    "FilePart",
    "FixtureError",
    "FixtureRequest",
    "Grounding",
    "GuardDecision",
    "GuardStage",
    "JudgeError",
    "KindSpec",
    "LoadContext",
    "Location",
    "Message",
    "ModelRequest",
    "NoVerdict",
    "Problems",
    "Rule",
    "ScriptStep",
    "ScriptedResult",
    "Section",
    "SentPart",
    "Testimony",
    "TextPart",
    "TextStep",
    "Tier",
    "ToolCall",
    "ToolCallsStep",
    "ToolDecl",
    "ToolRef",
    "ToolResult",
    "TrialFixture",
    "Usage",
    "Verdict",
    "Witness",
    "WitnessCheck",
    "absent",
    "at_least",
    "compact_json",
    "content_digest",
    "current_judge",
    "deep_equal",
    "did_you_mean",
    "dot_path",
    "extract_json",
    "failed",
    "first_equal",
    "hookimpl",
    "json_name",
    "minimum",
    "need",
    "non_empty",
    "non_empty_list",
    "optional_reason",
    "own_cases",
    "parts_of",
    "passed",
    "path_segments",
    "plugin_cache",
    "present",
    "properties",
    "quote",
    "quoted",
    "read_cache_entry",
    "render",
    "resolve",
    "rules",
    "scorer",
    "sent",
    "strings",
    "values_at",
    "version",
    "write_cache_entry",
]
