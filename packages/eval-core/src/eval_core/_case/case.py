"""The Eval Case: one frozen scenario, its generic fields, and how the full Case type is built.

The generic fields live here. Fixture blocks (files, MCP, journeys, faults...) and every
Expectation kind arrive from plug-ins: :func:`build_case_type` assembles the one msgspec type
that decodes a Case for the installed plug-in set, so a Case is typed in a single decode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

import msgspec

from eval_core._case.declared import Declared
from eval_core._case.json_form import CASE_JSON
from eval_core._case.kinds import ALL_TIERS, Expectation, Tier
from eval_core._case.recorded import Recorded

if TYPE_CHECKING:
    from eval_core._util.guard import Origin


class TextPart(msgspec.Struct, tag="text", tag_field="type", **CASE_JSON):
    text: str


class FilePart(msgspec.Struct, tag="file", tag_field="type", **CASE_JSON):
    file_id: str
    media_type: str
    name: str


Part = TextPart | FilePart


class Message(msgspec.Struct, **CASE_JSON):
    """One input message. String content is normalised to ``[{"type": "text", ...}]`` at load;
    a list of no parts says nothing, and is refused there."""

    role: Literal["user", "assistant"]
    content: str | Annotated[list[Part], msgspec.Meta(min_length=1)]

    def __post_init__(self) -> None:
        if isinstance(self.content, str):
            msgspec.structs.force_setattr(self, "content", [TextPart(text=self.content)])

    @property
    def parts(self) -> list[Part]:
        assert isinstance(self.content, list)
        return self.content

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if isinstance(p, TextPart))


ParticipantActivity = Literal["visible", "represented"]


class ToolDecl(msgspec.Struct, **CASE_JSON):
    """A Tool's declaration as the model sees it.

    ``mutating``: it changes data (the autonomy ceiling reads it). ``side_effecting``: its
    effect reaches the world and must not happen twice, so the runtime refuses a repeat of the
    same call in one Turn. ``participant_activity``: how the participant is shown the Tool's
    activity (``visible``: as itself; ``represented``: by a stand-in), stamped on its events.
    """

    name: str
    input_schema: dict[str, Any]
    description: str | None = None
    mutating: bool = False
    side_effecting: bool = False
    participant_activity: ParticipantActivity | None = None


class ScriptedResult(msgspec.Struct, **CASE_JSON):
    """A scripted Tool result: consumed in order; ``when`` matches arguments by deep equality.

    Besides an output, a result may deny, fail, refuse the arguments, or say the Tool's
    provider is waiting: on an approval it asked for (``approval_id``) or to be retried later
    (``retry_wait_id``); the runtime then parks the call instead of answering the model.
    """

    name: str
    when: Any = None
    output: Any = None
    denied: str | None = None
    error: str | None = None
    invalid_arguments: str | None = None
    approval_id: str | None = None
    retry_wait_id: str | None = None

    def outcomes(self) -> list[str | None]:
        """Every outcome field but ``output``: at most one of them may be set."""
        return [
            self.denied,
            self.error,
            self.invalid_arguments,
            self.approval_id,
            self.retry_wait_id,
        ]


class ScriptedCall(msgspec.Struct, **CASE_JSON):
    """One Tool call the scripted model makes.

    ``name`` must be a Tool the Trial offers the agent (the loader checks it against the
    Host), unless ``unoffered`` is true: the Case then scripts, on purpose, a call to a Tool
    the agent is *not* offered (a hallucinated call, to test how the runtime refuses it), and
    the loader refuses it if the Tool is offered after all. An Expectation may name such a
    Tool (``tool_not_called``). Part of the Case, so of the corpusHash, like the whole script.
    """

    call_id: str
    name: str
    arguments: Any = msgspec.field(default_factory=dict)
    unoffered: bool = False


class TextStep(msgspec.Struct, tag="text", tag_field="kind", **CASE_JSON):
    text: str


class ToolCallsStep(msgspec.Struct, tag="tool_calls", tag_field="kind", **CASE_JSON):
    calls: list[ScriptedCall]
    text: str | None = None


class StructuredStep(msgspec.Struct, tag="structured", tag_field="kind", **CASE_JSON):
    value: Any


ScriptStep = TextStep | ToolCallsStep | StructuredStep


class CaseBase(msgspec.Struct, **CASE_JSON):
    """The generic fields every Case has, whatever plug-ins are installed.

    ``script`` is required of every Case that runs a model (the loader says so); a Case whose
    plug-in field runs none (:attr:`CaseField.runs_model`) carries no script. ``recorded``
    is set on a script recorded from a real model (``eval record``): what that model was shown,
    which every scripted replay is compared with (drift, :mod:`eval_core._running.drift`).
    """

    id: str
    tier: Literal["l2", "l3"]
    agent: str
    input: list[Message]
    expect: list[Expectation]
    script: list[ScriptStep] | None = None
    recorded: Recorded | None = None
    context: dict[str, Any] | None = None
    tools: list[ToolDecl] = msgspec.field(default_factory=list)
    platform_tools: list[str] = msgspec.field(default_factory=list)
    tool_results: list[ScriptedResult] = msgspec.field(default_factory=list)
    trials: int = 1
    editor_schema: str | msgspec.UnsetType = msgspec.field(default=msgspec.UNSET, name="$schema")
    """``"$schema"``: the JSON Schema an editor validates the file against (for instance
    ``../schema/case.schema.json``). Accepted (a string) and then dropped as the Case is
    decoded, so it is never in the Case: not in the corpusHash, the per-Case digests, the
    checked-Corpus cache or a transcript. It stays out of the hash because it cannot change
    what a Case measures (the hashing rule: anything that can is in the hash, nothing else
    is), and a pointer that differs by where a file sits (``../`` from ``red-team/``) or by
    whether the author's editor wants one must not make two Sweeps of the same Cases
    incomparable. The Case file's bytes still key the cache, like its whitespace does."""

    def __post_init__(self) -> None:
        if self.editor_schema is not msgspec.UNSET:  # accepted, then ignored (see the field)
            msgspec.structs.force_setattr(self, "editor_schema", msgspec.UNSET)

    def field(self, name: str) -> Any:
        """A plug-in field's value (``None`` when absent or not installed)."""
        return getattr(self, name, None)


Case = CaseBase


class ToolRef(msgspec.Struct, frozen=True):
    """A Tool name a plug-in's Case field holds: its JSON path relative to the field
    (``[0].script[1].calls[0].name``), the name, whether it is a scripted call (``call``), and
    whether that call is marked ``unoffered`` (see :class:`ScriptedCall`)."""

    path: str
    name: str
    call: bool = False
    unoffered: bool = False


class CaseField(Declared, frozen=True):
    """A Case field contributed by a plug-in (a fixture block such as ``mcp`` or ``journey``).

    ``name`` is the Python name (snake_case); JSON spells it camelCase. ``type`` is any type
    msgspec can decode. ``tiers`` lists where the field may appear. For the grounding rule,
    ``given_text(value)`` yields the field's strings the model is given at some point (a later
    Turn's input), ``first_request_text(value)`` those already in the first request (attached
    File content); both are guarded like every plug-in callable. ``runs_model`` false means a
    Case that sets the field runs no model (a Routine run, a native admission): it carries no
    ``script``. ``description``, ``examples`` and ``json_schema`` work as on
    :class:`~eval_core._case.kinds.KindSpec`.

    Tool names: ``tool_names(value)`` yields each Tool name the field holds (a further Turn's
    scripted calls, an earlier attempt's calls) as a :class:`ToolRef`, checked at load against
    the Tools the Host offers the agent like the Case's own; ``offers_tools(value)`` yields the
    Tools the field itself adds to a Trial (a Routine's tool contract), which the Case's names
    may then name. Both are guarded like every plug-in callable.
    """

    name: str
    type: Any
    tiers: frozenset[Tier] = ALL_TIERS
    description: str = ""
    runs_model: bool = True
    given_text: Callable[[Any], Iterable[str]] | None = None
    first_request_text: Callable[[Any], Iterable[str]] | None = None
    tool_names: Callable[[Any], Iterable[ToolRef]] | None = None
    offers_tools: Callable[[Any], Iterable[str]] | None = None
    examples: Sequence[Any] = ()
    json_schema: Mapping[str, Any] | None = None
    origin: Origin | None = None  # set by the plug-in loader; not compared or shown


def json_name(python_name: str) -> str:
    head, *rest = python_name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def build_case_type(kinds: list[type[Expectation]], fields: list[CaseField]) -> type[CaseBase]:
    """The Case type for this plug-in set: generic fields + plug-in fields + the kind union."""
    if kinds:
        union: Any = Union[tuple(kinds)]  # noqa: UP007 - a runtime-built union
    else:
        union = Expectation
    extra = [(f.name, f.type | None, None) for f in fields]
    return msgspec.defstruct(  # type: ignore[return-value]  # it subclasses CaseBase
        "Case",
        [("expect", list[union]), *extra],
        bases=(CaseBase,),
        **CASE_JSON,
    )
