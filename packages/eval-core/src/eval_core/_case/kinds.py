"""What an Expectation kind is: a tagged msgspec Struct plus the metadata the core reasons with.

Kinds are data, never functions: a Case names a kind and its fields; the scorer lives with the
plug-in. The core reads only this metadata, so it never has to know a kind by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import msgspec
from msgspec.structs import force_setattr

from eval_core._case.declared import Declared
from eval_core._case.evidence import Location

if TYPE_CHECKING:
    from eval_core._case.case import Case
    from eval_core._case.evidence import Evidence
    from eval_core._case.witness import Witness
    from eval_core._util.guard import Origin

Tier = Literal["l2", "l3"]
ALL_TIERS: frozenset[Tier] = frozenset({"l2", "l3"})


class Expectation(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    rename="camel",
    tag_field="kind",
):
    """Base of every kind. Subclass with ``tag="<kind>"``; fields are camelCase in JSON."""

    kind_name: ClassVar[str] = ""


class Verdict(msgspec.Struct, frozen=True):
    """One Expectation's outcome. ``detail`` is always filled: it says why, pass or fail.

    ``at`` is exactly where the evidence is, when the scorer knows it (the request that
    matched, the first that failed, the Tool call found): a report opens that, and falls back
    to the part the kind declares (:attr:`KindSpec.evidence_at`) when it is ``None``.
    """

    passed: bool
    detail: str
    at: Location | None = None


class NoVerdict(Exception):  # noqa: N818 - it names an outcome, not a bug
    """Raised by a scorer that cannot reach a verdict (a Judge failure): the Trial errors.

    This is the one sanctioned way out of a scorer: a void outcome, never a low score.
    """


def passed(detail: str, at: Location | None = None) -> Verdict:
    return Verdict(True, detail, at)


def failed(detail: str, at: Location | None = None) -> Verdict:
    return Verdict(False, detail, at)


TextCompare = Literal["exact", "casefold"]
GroundingScope = Literal["given", "first_request"]


class Grounding(msgspec.Struct, frozen=True):
    """The text an Expectation asserts must appear in what the model was given.

    ``field`` names the attribute holding the text (or regex when ``regex`` is true);
    ``waivable`` allows an ``ungrounded`` reason to waive the rule; ``scope`` picks the
    material: everything given, or only the first request's.
    """

    field: str
    waivable: bool = True
    regex: bool = False
    scope: GroundingScope = "given"


Scorer = Callable[[Any, "Evidence"], Verdict]
ValueCheck = Callable[[Any, "Case"], Sequence[tuple[str, str]]]
SeamReached = Callable[[Any, "Evidence"], bool]
GuardGate = Callable[[Any], bool]


class KindSpec(Declared, frozen=True):
    """A kind as a plug-in declares it.

    - ``struct``: the msgspec Struct (a subclass of :class:`Expectation`) that is its schema.
    - ``scorer``: a total function ``(expectation, evidence) -> Verdict``. It must never raise;
      missing evidence is a failure with a reason, never a pass. (The runner still turns a
      raising scorer into an errored Trial, naming the kind.)
    - ``tiers``: where the kind may appear; the loader refuses it elsewhere.
    - ``check``: value rules msgspec typing cannot say (non-empty text, compiling regex...);
      returns ``(json_path_suffix, reason)`` pairs, the suffix relative to the Expectation.
    - ``grounding``: when set, the content must appear in what the model was given.
    - ``text_compare``: how its text is compared (exact for prompts, casefold for output).
    - ``seam_independent``: a failure of this kind is never explained by an unexercised seam.
    - ``seam``: whether the Tool or path this kind depends on was exercised in the Trial.
    - ``guard_gate``: true when a failure of this Expectation may only mean the model declined
      before the guard was reached (the Trial is then unexercised, not failed).
    - ``description`` and ``examples`` (documents of the kind, as a Case spells them): shown
      by editors on hover through the JSON Schema and in the kind reference (docs/kinds.md,
      ``eval plugins --kind``), whose docs build refuses a kind without both or with an
      example the loader refuses; prose, so never part of a schema fingerprint.
    - ``witness``: which witness its scorer reads (one of
    :data:`eval_core._case.witness.WITNESSES`):
      who saw what it asserts. Only ``events`` (the runtime's own record) is testimony, for
      kinds about the record itself; a kind asserting that something did or did not happen
      reads a witness the runtime does not control. ``eval plugins`` shows it, and the
      contract check refuses a kind that declares none or passes on testimony alone.
    - ``evidence_at``: where in the Evidence this kind's evidence lives (a
      :class:`~eval_core._case.evidence.Location` naming a part: the requests, the Tool calls,
      the events, one family record, the answer), so the report's "see the evidence" link
      opens it; a Verdict's own ``at`` says exactly which one when the scorer knows. Shown
      only, not part of the kind's schema; ``None`` (undeclared) shows no link, never a guess.
    - ``tool_fields``: the fields (Python names) that name a Tool of the Case's agent: each
      holds a Tool name, a list of them, or ``None`` (left out). The loader checks every such
      name against the Tools the Host says the agent is offered
      (:meth:`~eval_core._plugins.host.Host.offered_tools`), so no Expectation passes on a
      name that cannot occur (``tool_not_called`` of a misspelt Tool).
    - ``json_schema``: JSON Schema keywords for what ``check`` enforces and msgspec's types
      cannot say (``{"properties": {"count": {"minimum": 0}}}``), merged into the kind's schema
      so an editor refuses it as it is typed. The loader still enforces it through ``check``.

    Every callable is guarded: one that raises is named (distribution, version, kind, file:line)
    as a refusal at load or an errored Trial at run, never a crash or a verdict.
    """

    struct: type[Expectation]
    scorer: Scorer
    tiers: frozenset[Tier] = ALL_TIERS
    check: ValueCheck | None = None
    grounding: Grounding | None = None
    text_compare: TextCompare = "exact"
    seam_independent: bool = False
    seam: SeamReached | None = None
    guard_gate: GuardGate | None = None
    description: str = ""
    examples: Sequence[Mapping[str, Any]] = ()
    json_schema: Mapping[str, Any] | None = None
    witness: Witness | None = None
    evidence_at: Location | None = None
    tool_fields: tuple[str, ...] = ()
    name: str = ""  # the Struct's tag, set from it
    origin: Origin | None = None  # set by the plug-in loader; not compared or shown

    def tool_names(self, expectation: Any) -> Iterator[tuple[str, str]]:
        """Each Tool name the Expectation holds, with its JSON path suffix (``.names[1]``)."""
        fields, encoded = self.struct.__struct_fields__, self.struct.__struct_encode_fields__
        for field in self.tool_fields:
            value = getattr(expectation, field, None)
            suffix = "." + encoded[fields.index(field)]
            if isinstance(value, str):
                yield suffix, value
            elif isinstance(value, list):
                for index, name in enumerate(value):
                    if isinstance(name, str):
                        yield f"{suffix}[{index}]", name

    def __post_init__(self) -> None:
        for field in self.tool_fields:
            if field not in self.struct.__struct_fields__:
                raise TypeError(f"{self.struct.__name__} has no field {field!r} (tool_fields)")
        tag = self.struct.__struct_config__.tag
        if not isinstance(tag, str) or not tag:
            raise TypeError(f"{self.struct.__name__} needs a tag: class X(Expectation, tag=...)")
        self.struct.kind_name = tag
        force_setattr(self, "name", tag)
